package install

import (
	"os"
	"path/filepath"

	"github.com/tailscale/hujson"
)

// This file is OpenCode's MCP server entry in its config file.

// openCodeMCPEntry is memoryd's entry in OpenCode's "mcp" map.
func openCodeMCPEntry(command []string) jsonObject {
	return jsonObject{{"type", "local"}, {"command", command}}
}

// AddOpenCodeMCP returns a global OpenCode config file's data with
// memoryd's MCP server in its "mcp" map (added, or replaced when it
// differs); nil data is a file to create.
func AddOpenCodeMCP(data []byte, command []string) ([]byte, error) {
	root, err := parseObject("opencode config", data)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(root.Value.(*hujson.Object))
	if data == nil {
		setMember(root.Value.(*hujson.Object), "$schema", openCodeSchema, unit)
	}
	if _, err := setAt(&root, []string{"mcp"}, MCPServerName, openCodeMCPEntry(command), unit); err != nil {
		return nil, err
	}
	return packObject("opencode config", root)
}

// RemoveOpenCodeMCP removes memoryd's MCP server from a global OpenCode
// config file's data, and the "mcp" map when that leaves it empty.
func RemoveOpenCodeMCP(data []byte) ([]byte, error) {
	root, err := parseObject("opencode config", data)
	if err != nil {
		return nil, err
	}
	if !removeAt(&root, []string{"mcp"}, MCPServerName) {
		return data, nil
	}
	return packObject("opencode config", root)
}

// OpenCodeMCP returns the file whose "mcp" map holds memoryd's server and
// its command, or "" and nil.
func OpenCodeMCP(dir string) (file string, command []string, err error) {
	files, err := readOpenCode(dir)
	if err != nil {
		return "", nil, err
	}
	for _, f := range files {
		v := f.root.Find("/mcp/" + MCPServerName + "/command")
		if v == nil {
			continue
		}
		file, command = f.path, nil
		if arr, ok := v.Value.(*hujson.Array); ok {
			for _, e := range arr.Elements {
				s, _ := stringValue(e)
				command = append(command, s)
			}
		}
	}
	return file, command, nil
}

// openCodeMCPFile is the file install puts the MCP server in: the one that
// has it already, else the file with the instructions OpenCode uses, else
// the last config file with the user's settings, else the last config
// file, else a new opencode.json. A file that cannot be read or parsed is
// the last one that exists: the edit then reports what is wrong with it.
func openCodeMCPFile(dir string) string {
	files, err := readOpenCode(dir)
	if err != nil {
		last := filepath.Join(dir, "opencode.json")
		for _, name := range OpenCodeFiles {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				last = filepath.Join(dir, name)
			}
		}
		return last
	}
	hasMCP := func(f *openCodeFile) bool { return f.root.Find("/mcp/"+MCPServerName) != nil }
	if f := pickOpenCode(files, hasMCP); f != nil && hasMCP(f) {
		return f.path
	}
	if f := pickOpenCode(files, (*openCodeFile).has); f != nil {
		return f.path
	}
	return filepath.Join(dir, "opencode.json")
}
