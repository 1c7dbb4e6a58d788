package install

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"
)

// This file is OpenCode's plugin: the JavaScript install writes into
// OpenCode's plugin folder, rendered with the memoryd binary and config.

// openCodePlugin is the plugin install writes, with {{binary}} and
// {{config}} to fill in.
//
//go:embed opencode_plugin.js
var openCodePlugin string

// openCodePluginHeader is the first line of the plugin, the same in every
// version memoryd wrote; with the MEMORYD constant it tells memoryd's
// plugin from a memoryd.js of the user's, which install never overwrites
// and uninstall never removes.
var openCodePluginHeader, _, _ = strings.Cut(openCodePlugin, "\n")

// isOpenCodePlugin reports whether data is a plugin memoryd wrote.
func isOpenCodePlugin(data []byte) bool {
	return bytes.HasPrefix(data, []byte(openCodePluginHeader+"\n")) && bytes.Contains(data, []byte("\nconst MEMORYD = "))
}

// OpenCodePluginFile is memoryd's plugin in OpenCode's global plugin folder
// (dir is OpenCodeDir). OpenCode 1.18 loads every .js file there.
func OpenCodePluginFile(dir string) string { return filepath.Join(dir, "plugin", "memoryd.js") }

// RenderOpenCodePlugin returns the plugin that adds `binary context
// --project-only --dir <session directory> --config config` to each
// session's system prompt.
func RenderOpenCodePlugin(binary, config string) []byte {
	lit := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	return []byte(strings.NewReplacer("{{binary}}", lit(binary), "{{config}}", lit(config)).Replace(openCodePlugin))
}

// OpenCodePluginBinary returns the memoryd binary a plugin file made by
// RenderOpenCodePlugin runs, and whether data is such a file.
func OpenCodePluginBinary(data []byte) (string, bool) {
	if !isOpenCodePlugin(data) {
		return "", false
	}
	_, rest, ok := strings.Cut(string(data), "\nconst MEMORYD = ")
	if !ok {
		return "", true
	}
	lit, _, _ := strings.Cut(rest, ";")
	var bin string
	json.Unmarshal([]byte(lit), &bin)
	return bin, true
}
