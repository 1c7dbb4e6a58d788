package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tailscale/hujson"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/protocol"
)

// OpenCodeFiles are the global OpenCode config files in the order OpenCode
// loads them. Each may be JSONC. A later file's "instructions" list replaces
// an earlier one's rather than adding to it (checked against opencode 1.18).
var OpenCodeFiles = []string{"config.json", "opencode.json", "opencode.jsonc"}

// openCodeSchema is the "$schema" a config file created by install carries,
// as OpenCode itself writes into every config file it loads.
const openCodeSchema = "https://opencode.ai/config.json"

// indexFile is the generated index's name (index.IndexFile, which this
// package does not import for one constant).
const indexFile = "MEMORY.md"

const instructionsKey = "instructions"

// OpenCodeDir returns the folder of the user's global OpenCode config:
// $XDG_CONFIG_HOME/opencode, or ~/.config/opencode when xdgConfigHome is
// empty or relative (the XDG rule).
func OpenCodeDir(home, xdgConfigHome string) string {
	return filepath.Join(configHome(home, xdgConfigHome), "opencode")
}

// Instructions returns the entries install adds to OpenCode's instructions:
// the absolute paths of PROTOCOL.md and MEMORY.md in memoryDir, which must
// be absolute.
func Instructions(memoryDir string) []string {
	return []string{filepath.Join(memoryDir, protocol.File), filepath.Join(memoryDir, indexFile)}
}

// WireOpenCode makes OpenCode load entries at the start of every session by
// adding the missing ones to an "instructions" list in dir (see
// OpenCodeDir). It edits the last file, in load order, that already has
// "instructions" (the list OpenCode uses); else the last file that holds
// the user's settings (more than the "$schema" OpenCode writes into a file
// it creates itself); else the last file that exists; else it creates
// opencode.json. The edit is minimal: comments, trailing
// commas and the rest of the layout stay as they were. It reports the file
// and whether it changed; a file that cannot be parsed is an error and is
// not touched. A symlinked config file is edited where it points.
func WireOpenCode(dir string, entries []string) (file string, changed bool, err error) {
	files, err := readOpenCode(dir)
	if err != nil {
		return "", false, err
	}
	target := pickOpenCode(files, (*openCodeFile).has)
	if target == nil {
		return createOpenCode(dir, entries)
	}
	arr, err := target.list()
	if err != nil {
		return target.path, false, err
	}
	if arr == nil {
		obj := target.root.Value.(*hujson.Object)
		addMember(obj, instructionsKey, entries, indentUnit(obj))
	} else {
		present := map[string]bool{}
		for _, s := range stringsOf(arr) {
			present[s] = true
		}
		var missing []string
		for _, e := range entries {
			if !present[e] {
				missing = append(missing, e)
			}
		}
		appendStrings(arr, missing, indentUnit(target.root.Value.(*hujson.Object)))
	}
	changed, err = target.save()
	return target.path, changed, err
}

// UnwireOpenCode removes exactly entries from the "instructions" of every
// global OpenCode config file in dir and returns the files it changed.
// Comments attached to a removed entry go with it; everything else stays. A
// list left empty is dropped with its key when no earlier file has an
// "instructions" key (then an absent and an empty list mean the same to
// OpenCode); otherwise "instructions": [] stays, so an earlier file's list is
// not unmasked. Files are never deleted.
func UnwireOpenCode(dir string, entries []string) (changed []string, err error) {
	files, err := readOpenCode(dir)
	if err != nil {
		return nil, err
	}
	drop := map[string]bool{}
	for _, e := range entries {
		drop[e] = true
	}
	for i, f := range files {
		arr, err := f.list()
		if err != nil || arr == nil {
			continue // not ours to fix; WireOpenCode reports it
		}
		if !removeStrings(arr, drop) {
			continue
		}
		if len(arr.Elements) == 0 {
			if !anyHas(files[:i]) {
				removeMember(f.root.Value.(*hujson.Object), instructionsKey)
			} else if !hasComment(arr.AfterExtra) {
				arr.AfterExtra = nil // "[\n  ]" → "[]"
			}
		}
		if _, err := f.save(); err != nil {
			return changed, err
		}
		changed = append(changed, f.path)
	}
	return changed, nil
}

// OpenCodeInstructions returns the "instructions" OpenCode uses from its
// global config in dir and the file they come from ("" and nil when no file
// has the key).
func OpenCodeInstructions(dir string) (file string, list []string, err error) {
	files, err := readOpenCode(dir)
	if err != nil {
		return "", nil, err
	}
	for _, f := range files {
		arr, err := f.list()
		if err != nil {
			return f.path, nil, err
		}
		if arr != nil {
			file, list = f.path, stringsOf(arr)
		}
	}
	return file, list, nil
}

// openCodeFile is one parsed config file.
type openCodeFile struct {
	path string
	raw  []byte
	root hujson.Value
}

// readOpenCode parses the global config files that exist, in load order.
func readOpenCode(dir string) ([]*openCodeFile, error) {
	var files []*openCodeFile
	for _, name := range OpenCodeFiles {
		p := filepath.Join(dir, name)
		raw, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("opencode config: %w", err)
		}
		root, err := hujson.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("opencode config %s: %w", p, err)
		}
		if _, ok := root.Value.(*hujson.Object); !ok {
			return nil, fmt.Errorf("opencode config %s: not a JSON object", p)
		}
		files = append(files, &openCodeFile{path: p, raw: raw, root: root})
	}
	return files, nil
}

// pickOpenCode is the file memoryd's wiring goes into: the last of files
// for which has reports true; else the last that holds the user's
// settings; else the last; nil when there are none.
func pickOpenCode(files []*openCodeFile, has func(*openCodeFile) bool) *openCodeFile {
	var with, settings, last *openCodeFile
	for _, f := range files {
		last = f
		if has(f) {
			with = f
		}
		if holdsSettings(f.root) {
			settings = f
		}
	}
	for _, f := range []*openCodeFile{with, settings} {
		if f != nil {
			return f
		}
	}
	return last
}

// holdsSettings reports whether a config file's object has a member other
// than "$schema": a file OpenCode created for itself (`opencode models`
// writes an opencode.jsonc with only its "$schema") holds none.
func holdsSettings(root hujson.Value) bool {
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return false
	}
	for _, m := range obj.Members {
		if m.Name.Value.(hujson.Literal).String() != "$schema" {
			return true
		}
	}
	return false
}

// has reports whether the file has an "instructions" key.
func (f *openCodeFile) has() bool { return f.root.Find("/"+instructionsKey) != nil }

func anyHas(files []*openCodeFile) bool {
	for _, f := range files {
		if f.has() {
			return true
		}
	}
	return false
}

// list returns the "instructions" array, nil when the key is absent, and an
// error when it holds something other than a list of strings.
func (f *openCodeFile) list() (*hujson.Array, error) {
	v := f.root.Find("/" + instructionsKey)
	if v == nil {
		return nil, nil
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, fmt.Errorf("opencode config %s: %q is not a list", f.path, instructionsKey)
	}
	for _, e := range arr.Elements {
		if e.Value.Kind() != '"' {
			return nil, fmt.Errorf("opencode config %s: %q holds a non-string entry", f.path, instructionsKey)
		}
	}
	return arr, nil
}

// save writes the edited tree when its bytes differ from what was read.
func (f *openCodeFile) save() (bool, error) {
	out := f.root.Pack()
	if bytes.Equal(out, f.raw) {
		return false, nil
	}
	if std, err := hujson.Standardize(bytes.Clone(out)); err != nil || !json.Valid(std) {
		return false, fmt.Errorf("opencode config %s: edit produced invalid JSONC (not written)", f.path)
	}
	if readOnly(f.path) {
		return false, fmt.Errorf("opencode config: %w", errReadOnly(f.path, "run memoryd"))
	}
	if _, err := writeFollowing(f.path, out, keepPerm(f.path, 0o644)); err != nil {
		return false, fmt.Errorf("opencode config: %w", err)
	}
	return true, nil
}

// createOpenCode writes a new opencode.json holding only the schema and entries.
func createOpenCode(dir string, entries []string) (string, bool, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(struct {
		Schema       string   `json:"$schema"`
		Instructions []string `json:"instructions"`
	}{openCodeSchema, entries})
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		_, err = atomicfile.Write(dir, "opencode.json", buf.Bytes(), 0o644)
	}
	if err != nil {
		return "", false, fmt.Errorf("create opencode config: %w", err)
	}
	return filepath.Join(dir, "opencode.json"), true, nil
}

func stringsOf(arr *hujson.Array) []string {
	out := make([]string, 0, len(arr.Elements))
	for _, e := range arr.Elements {
		out = append(out, e.Value.(hujson.Literal).String())
	}
	return out
}

// removeStrings removes the elements of arr whose value is in drop and
// reports whether it removed any (see detachItem for the layout).
func removeStrings(arr *hujson.Array, drop map[string]bool) bool {
	removed := false
	for i := len(arr.Elements) - 1; i >= 0; i-- {
		if !drop[arr.Elements[i].Value.(hujson.Literal).String()] {
			continue
		}
		befores := make([]*hujson.Extra, len(arr.Elements))
		afters := make([]*hujson.Extra, len(arr.Elements))
		for j := range arr.Elements {
			befores[j], afters[j] = &arr.Elements[j].BeforeExtra, &arr.Elements[j].AfterExtra
		}
		detachItem(befores, afters, &arr.AfterExtra, i)
		arr.Elements = slices.Delete(arr.Elements, i, i+1)
		removed = true
	}
	return removed
}

// removeMember removes the member called name from obj.
func removeMember(obj *hujson.Object, name string) {
	for i := range obj.Members {
		if obj.Members[i].Name.Value.(hujson.Literal).String() != name {
			continue
		}
		befores := make([]*hujson.Extra, len(obj.Members))
		afters := make([]*hujson.Extra, len(obj.Members))
		for j := range obj.Members {
			befores[j], afters[j] = &obj.Members[j].Name.BeforeExtra, &obj.Members[j].Value.AfterExtra
		}
		detachItem(befores, afters, &obj.AfterExtra, i)
		obj.Members = slices.Delete(obj.Members, i, i+1)
		return
	}
}

// openCodeSteps are the MCP server and the plugin: for install, in the
// file openCodeMCPFile picks; for uninstall, in every config file.
func openCodeSteps(o *Options, adding bool) []agentStep {
	dir := OpenCodeDir(o.Home, o.XDGConfigHome)
	command := o.MCPCommand()
	mcp := func(path string) agentStep {
		return agentStep{what: "opencode mcp", path: path, perm: 0o644, note: "mcp." + MCPServerName,
			add:    func(data []byte) ([]byte, error) { return AddOpenCodeMCP(data, command) },
			remove: RemoveOpenCodeMCP, empty: onlySchema, json: true}
	}
	var steps []agentStep
	if adding {
		steps = append(steps, mcp(openCodeMCPFile(dir)))
	} else {
		for _, name := range OpenCodeFiles {
			steps = append(steps, mcp(filepath.Join(dir, name)))
		}
	}
	plugin := RenderOpenCodePlugin(o.Binary, o.ConfigPath)
	return append(steps, agentStep{what: "opencode plugin", path: OpenCodePluginFile(dir), perm: 0o644,
		note: "adds the project's memory index to the system prompt",
		add: func(data []byte) ([]byte, error) {
			if data != nil && !isOpenCodePlugin(data) {
				return nil, errors.New("not memoryd's plugin (memoryd's starts with its own header and sets MEMORYD): " +
					"memoryd never overwrites a file it did not write — rename yours, then install again")
			}
			return plugin, nil
		},
		remove: func(data []byte) ([]byte, error) {
			if !isOpenCodePlugin(data) {
				return data, nil // not ours
			}
			return nil, nil
		},
		empty: func(b []byte) bool { return len(b) == 0 },
	})
}

// onlySchema reports whether a config file holds nothing but the "$schema"
// install writes into a file it creates (OpenCode writes it too): what is
// left once memoryd's instructions and MCP server are removed from a file
// install created. Uninstall deletes such a file.
func onlySchema(data []byte) bool {
	root, err := parseObject("opencode config", data)
	if err != nil || hasComment(root.BeforeExtra) || hasComment(root.AfterExtra) {
		return false
	}
	obj := root.Value.(*hujson.Object)
	if hasComment(obj.AfterExtra) || len(obj.Members) != 1 {
		return false
	}
	s, ok := stringValue(obj.Members[0].Value)
	return ok && obj.Members[0].Name.Value.(hujson.Literal).String() == "$schema" && s == openCodeSchema &&
		!hasComment(obj.Members[0].Name.BeforeExtra) && !hasComment(obj.Members[0].Value.AfterExtra)
}
