package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Codex reads $CODEX_HOME/AGENTS.md (default ~/.codex) into every session
// and its MCP servers from $CODEX_HOME/config.toml. memoryd's part of each
// is a block between marker lines, so that it can be refreshed and removed
// without parsing the rest:
//
//   - AGENTS.md: the global memory index, MEMORY.md's text, which the
//     daemon refreshes on every rebuild (RefreshCodexBlock);
//   - config.toml: the table [mcp_servers.memoryd]. memory_search and
//     memory_read declare the MCP readOnlyHint, so Codex runs them without
//     asking; memory_save and memory_forget are left to Codex's approval.

// A block is whole lines: the begin line, the body, the end line. Only a
// well-formed block memoryd wrote is memoryd's: the begin line and the end
// line exactly as memoryd writes them, in that order, no other marker line
// between them, and a body valid says memoryd wrote. Any other line that
// looks like a marker (a half-deleted block, a marker quoted in the user's
// text) is the user's: left alone, and reported (stray).
type markers struct {
	begin, end string
	valid      func(body string) bool
}

var (
	codexAgentsMarkers = markers{
		begin: "<!-- memoryd:begin — the user's long-term memory index, kept up to date by memoryd; `memoryd uninstall` removes this block -->",
		end:   "<!-- memoryd:end -->",
		valid: func(body string) bool { return strings.HasPrefix(body, codexIndexIntro) },
	}
	codexConfigMarkers = markers{
		begin: "# memoryd:begin — memoryd's MCP server, added by `memoryd install --codex`; `memoryd uninstall` removes this block",
		end:   "# memoryd:end",
		valid: func(body string) bool { return strings.HasPrefix(body, "[mcp_servers."+MCPServerName+"]\n") },
	}
)

// markerLike reports whether a line (without its newline) looks like one
// of m's marker lines.
func (m markers) markerLike(line string) bool {
	head, _, _ := strings.Cut(m.begin, ":")
	return strings.HasPrefix(strings.TrimSpace(line), head+":")
}

// scan finds m's blocks in data. ok is true when there is exactly one
// well-formed block, spanning start to stop (the end line's newline
// included); stray are the 1-based numbers of the marker-like lines
// outside it (all of them when there is no single block), and blocks is
// how many well-formed blocks there are.
func (m markers) scan(data []byte) (start, stop int, ok bool, stray []int, blocks int) {
	type line struct {
		off, next, n int
		text         string
	}
	var marks []line
	for off, n := 0, 1; off < len(data); n++ {
		l, next := lineAt(data, off)
		text := string(bytes.TrimRight(l, "\r"))
		if m.markerLike(text) {
			marks = append(marks, line{off, next, n, text})
		}
		off = next
	}
	inBlock := map[int]bool{}
	for i := 0; i+1 < len(marks); i++ {
		b, e := marks[i], marks[i+1]
		if b.text != m.begin || e.text != m.end {
			continue
		}
		if m.valid != nil && !m.valid(string(data[b.next:e.off])) {
			continue
		}
		blocks++
		start, stop = b.off, e.next
		inBlock[i], inBlock[i+1] = true, true
		i++
	}
	ok = blocks == 1
	for i, l := range marks {
		if !ok || !inBlock[i] {
			stray = append(stray, l.n)
		}
	}
	if !ok {
		start, stop = 0, 0
	}
	return start, stop, ok, stray, blocks
}

// findBlock returns the byte span of m's one well-formed block in data
// (see scan).
func findBlock(data []byte, m markers) (start, stop int, ok bool) {
	start, stop, ok, _, _ = m.scan(data)
	return start, stop, ok
}

// lineAt returns the line starting at off, without its newline, and the
// offset of the next line.
func lineAt(data []byte, off int) ([]byte, int) {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return data[off:], len(data)
	}
	return data[off : off+i], off + i + 1
}

// errSeveralBlocks is put's answer when data holds more than one block
// that looks like memoryd's: it cannot tell which one it wrote.
func errSeveralBlocks(n int) error {
	return fmt.Errorf("it holds %d blocks that look like memoryd's and memoryd cannot tell which one it wrote: "+
		"delete all but one (or all of them), then install again", n)
}

// put returns data with the block holding body: replaced where it is, else
// appended (marker lines of the user's stay as they are). More than one
// well-formed block is an error.
func (m markers) put(data []byte, body string) ([]byte, error) {
	block := m.begin + "\n" + body
	if body != "" && !strings.HasSuffix(body, "\n") {
		block += "\n"
	}
	block += m.end + "\n"
	start, stop, ok, _, blocks := m.scan(data)
	if blocks > 1 {
		return nil, errSeveralBlocks(blocks)
	}
	if ok {
		return append(append(bytes.Clone(data[:start]), block...), data[stop:]...), nil
	}
	// After a blank line; after text without a final newline, right on
	// the next line, so that remove can tell the two apart.
	if len(data) == 0 {
		return []byte(block), nil
	}
	return append(append(bytes.Clone(data), '\n'), block...), nil
}

// remove returns data without the block and the newline put added before
// it; data as it is without one well-formed block.
func (m markers) remove(data []byte) []byte {
	start, stop, ok := findBlock(data, m)
	if !ok {
		return data
	}
	before, after := data[:start], data[stop:]
	switch {
	case len(after) > 0 && after[0] != '\n' && !bytes.HasPrefix(after, []byte("\r\n")):
	case bytes.HasSuffix(before, []byte("\n\n")):
		before = before[:len(before)-1] // the blank line before the block
	case len(after) == 0 && bytes.HasSuffix(before, []byte("\n")) && !bytes.HasSuffix(before, []byte("\r\n")):
		before = before[:len(before)-1] // the file had no final newline
	}
	return append(bytes.Clone(before), after...)
}

// body returns the block's body, and whether there is a block.
func (m markers) body(data []byte) (string, bool) {
	start, stop, ok := findBlock(data, m)
	if !ok {
		return "", false
	}
	_, first := lineAt(data, start)
	inner := data[first:stop]
	inner = inner[:bytes.LastIndex(bytes.TrimRight(inner, "\n"), []byte("\n"))+1]
	return string(inner), true
}

// strayNote says, for install's report, which marker lines of data are
// not memoryd's block and were left alone ("" when there are none).
func (m markers) strayNote(data []byte) string {
	_, _, _, stray, _ := m.scan(data)
	if len(stray) == 0 {
		return ""
	}
	nums := make([]string, len(stray))
	for i, n := range stray {
		nums[i] = fmt.Sprint(n)
	}
	return "a memoryd marker that is not memoryd's own block, left alone: line " + strings.Join(nums, ", ")
}

// CodexHome is Codex's folder: $CODEX_HOME (codexHome) when absolute, else
// ~/.codex.
func CodexHome(home, codexHome string) string {
	if filepath.IsAbs(codexHome) {
		return codexHome
	}
	return filepath.Join(home, ".codex")
}

// codexIndexIntro heads the index in AGENTS.md: the entries are file names
// in the memory folder, which the model reaches through the MCP tools.
const codexIndexIntro = "The user's long-term memory (memoryd). Each entry names a fact file: read it with the " +
	"memory_read tool, find more with memory_search, and save what will matter in a later session with memory_save.\n\n"

// codexIndexBody is the block's body for index (MEMORY.md's bytes); a
// marker line inside it is defused so that it cannot end the block early.
func codexIndexBody(index []byte) string {
	text := strings.ReplaceAll(string(index), "<!-- memoryd:", "<!-- memoryd :")
	return codexIndexIntro + strings.TrimRight(text, "\n") + "\n"
}

// AddCodexIndex returns AGENTS.md's data with memoryd's block holding
// index; data as it is when it holds more than one block that looks like
// memoryd's (addCodexIndex says so).
func AddCodexIndex(data, index []byte) []byte {
	out, err := addCodexIndex(data, index)
	if err != nil {
		return data
	}
	return out
}

func addCodexIndex(data, index []byte) ([]byte, error) {
	return codexAgentsMarkers.put(data, codexIndexBody(index))
}

// CodexAgentsStray returns the numbers of the lines of AGENTS.md's data
// that look like memoryd's markers but are not part of memoryd's one
// well-formed block: memoryd leaves them alone; doctor reports them.
func CodexAgentsStray(data []byte) []int {
	_, _, _, stray, _ := codexAgentsMarkers.scan(data)
	return stray
}

// CodexConfigStray is CodexAgentsStray for config.toml's data.
func CodexConfigStray(data []byte) []int {
	_, _, _, stray, _ := codexConfigMarkers.scan(data)
	return stray
}

// RemoveCodexIndex returns AGENTS.md's data without memoryd's block.
func RemoveCodexIndex(data []byte) []byte { return codexAgentsMarkers.remove(data) }

// RefreshCodexBlock writes index (MEMORY.md's bytes) into memoryd's block
// in codexHome/AGENTS.md when the block is there and holds something else.
// Without the file or the block (Codex is not wired) it does nothing; it
// reports whether it wrote. The write is atomic. The daemon calls it after
// every rebuild.
func RefreshCodexBlock(codexHome string, index []byte) (changed bool, err error) {
	path := filepath.Join(codexHome, "AGENTS.md")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("codex AGENTS.md: %w", err)
	}
	body, ok := codexAgentsMarkers.body(data)
	if !ok || body == codexIndexBody(index) {
		return false, nil
	}
	if readOnly(path) {
		return false, fmt.Errorf("codex AGENTS.md: %s is read-only, so memoryd leaves it as it is (the index there is not refreshed)", path)
	}
	if _, err := writeFollowing(path, AddCodexIndex(data, index), keepPerm(path, 0o644)); err != nil {
		return false, fmt.Errorf("codex AGENTS.md: %w", err)
	}
	return true, nil
}

// CodexIndex returns the index in memoryd's block of AGENTS.md's data (as
// RefreshCodexBlock would write it for the same MEMORY.md), and whether
// there is a block.
func CodexIndex(data []byte) (string, bool) { return codexAgentsMarkers.body(data) }

// CodexIndexBody is the block's body for index, to compare with CodexIndex.
func CodexIndexBody(index []byte) string { return codexIndexBody(index) }

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// AddCodexMCP returns config.toml's data with memoryd's block holding
// [mcp_servers.memoryd] for command (AddCodexConfig without hooks).
func AddCodexMCP(data []byte, command []string) ([]byte, error) {
	return AddCodexConfig(data, command, nil)
}

// AddCodexConfig returns config.toml's data with memoryd's block holding
// [mcp_servers.memoryd] for command and the trust of hooks (see
// codexhooks.go), a trust Codex already records outside the block left
// to it. The file is read with a TOML parser: a memoryd server defined
// outside the block (by `codex mcp add memoryd`, as a quoted or dotted key
// or in an inline table), a file that does not parse, or a result that
// would not parse or would change any other key is an error, and nothing
// is written.
func AddCodexConfig(data []byte, command []string, hooks []CodexHook) ([]byte, error) {
	outside := codexConfigMarkers.remove(data)
	before, err := parseTOML(outside)
	if err != nil {
		return nil, fmt.Errorf("not valid TOML, so memoryd leaves it alone: %w", err)
	}
	if servers, ok := before["mcp_servers"].(map[string]any); ok && servers[MCPServerName] != nil {
		return nil, errors.New("mcp_servers." + MCPServerName + " is already defined outside memoryd's block: " +
			"remove it (codex mcp remove " + MCPServerName + "), then install again")
	}
	// memoryd's block adds tables under mcp_servers and hooks.state: each
	// of those must be a table TOML lets a [header] extend — not a value,
	// an array of tables or an inline table (a parser as lenient as ours
	// accepts the extension, Codex's does not).
	inline := tomlInlineTables(outside)
	for _, path := range [][]string{{"mcp_servers"}, {"hooks"}, {"hooks", "state"}} {
		key := strings.Join(path, ".")
		if inline[key] {
			return nil, fmt.Errorf("%s is an inline table (%s = { … }), which TOML does not let memoryd's block add to; "+
				"not changed — write it as [%s.NAME] tables, then install again", key, path[len(path)-1], key)
		}
		var v any = before
		for _, k := range path {
			if m, ok := v.(map[string]any); ok {
				v = m[k]
			}
		}
		if _, ok := v.(map[string]any); v != nil && !ok {
			return nil, fmt.Errorf("%s is not a table (a value or [[%s]] array), so memoryd's block cannot add to it; not changed", key, key)
		}
	}
	args := make([]string, len(command)-1)
	for i, a := range command[1:] {
		args[i] = tomlString(a)
	}
	body := fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [%s]\n", MCPServerName, tomlString(command[0]), strings.Join(args, ", "))
	trusted := tomlStates(before)
	var ours []string
	for _, h := range hooks {
		if _, ok := trusted[h.Key]; ok {
			continue
		}
		body += fmt.Sprintf("\n[hooks.state.%s]\ntrusted_hash = %s\n", tomlString(h.Key), tomlString(h.Hash))
		ours = append(ours, h.Key)
	}
	out, err := codexConfigMarkers.put(data, body)
	if err != nil {
		return nil, err
	}
	after, err := parseTOML(out)
	if err != nil {
		return nil, fmt.Errorf("memoryd's block would make it invalid TOML (%v); not changed — "+
			"an inline table for mcp_servers or hooks cannot take memoryd's tables: write it as [table] sections", err)
	}
	delete(after["mcp_servers"].(map[string]any), MCPServerName)
	for _, k := range ours {
		delete(tomlStates(after), k)
	}
	if !sameTOML(before, after) {
		return nil, errors.New("memoryd's block would change other keys; not changed")
	}
	return out, nil
}

// RemoveCodexMCP returns config.toml's data without memoryd's block.
func RemoveCodexMCP(data []byte) []byte { return codexConfigMarkers.remove(data) }

// CodexMCP returns the command line of memoryd's block in config.toml's
// data, and whether there is a block, for doctor. A block whose command
// cannot be read gives nil.
func CodexMCP(data []byte) (command []string, ok bool) {
	body, ok := codexConfigMarkers.body(data)
	if !ok {
		return nil, false
	}
	var cmd string
	var args []string
	for _, line := range strings.Split(body, "\n") {
		key, value, found := strings.Cut(line, " = ")
		switch {
		case !found:
		case key == "command":
			if json.Unmarshal([]byte(value), &cmd) != nil {
				return nil, true
			}
		case key == "args":
			if json.Unmarshal([]byte(value), &args) != nil {
				return nil, true
			}
		}
	}
	if cmd == "" {
		return nil, true
	}
	return append([]string{cmd}, args...), true
}

// codexSteps are the three files of Codex's wiring; hooks.json comes
// before config.toml, which records the trust of the hooks as written.
func codexSteps(o *Options) []agentStep {
	dir := CodexHome(o.Home, o.CodexHome)
	command := o.MCPCommand()
	empty := func(b []byte) bool { return len(b) == 0 }
	hooksPath := filepath.Join(dir, "hooks.json")
	hookCommands := map[string]string{"context": o.contextCommand("--project-only"), "recall": o.recallCommand("--project-only"),
		"recall-tool": o.hookCommand("recall-tool")}
	return []agentStep{
		{what: "codex agents", path: filepath.Join(dir, "AGENTS.md"), perm: 0o644, note: "the memory index, refreshed by the daemon",
			add: func(data []byte) ([]byte, error) {
				index, err := os.ReadFile(filepath.Join(o.MemoryDir, indexFile))
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, err
				}
				return addCodexIndex(data, index)
			},
			remove: func(data []byte) ([]byte, error) { return RemoveCodexIndex(data), nil }, empty: empty,
			report: codexAgentsMarkers.strayNote},
		{what: "codex hooks", path: hooksPath, perm: 0o644, note: "SessionStart (the project's index), UserPromptSubmit (recall) and PreToolUse (recall-tool on Bash|apply_patch) hooks",
			add:    func(data []byte) ([]byte, error) { return AddCodexHooks(data, hookCommands) },
			remove: RemoveCodexHooks, empty: isEmptyObject, json: true},
		{what: "codex mcp", path: filepath.Join(dir, "config.toml"), perm: 0o600, note: "[mcp_servers." + MCPServerName + "], the hooks' trust",
			add: func(data []byte) ([]byte, error) {
				// The trust is for the hooks as install writes them.
				hooksData, err := os.ReadFile(hooksPath)
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, err
				}
				if hooksData, err = AddCodexHooks(hooksData, hookCommands); err != nil {
					return nil, err
				}
				hooks, err := CodexHooks(hooksPath, hooksData)
				if err != nil {
					return nil, err
				}
				return AddCodexConfig(data, command, hooks)
			},
			remove: func(data []byte) ([]byte, error) { return RemoveCodexMCP(data), nil }, empty: empty,
			report: codexConfigMarkers.strayNote},
	}
}
