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
