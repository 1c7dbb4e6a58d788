package install

import (
	"path/filepath"
	"slices"

	"github.com/tailscale/hujson"
)

// Claude Code keeps its MCP servers in ~/.claude.json (top-level
// "mcpServers", where `claude mcp add --scope user` writes them) and its
// hooks and permissions in ~/.claude/settings.json; with CLAUDE_CONFIG_DIR
// set, both live in that folder. The CLI rewrites ~/.claude.json itself
// (start counts, caches), so memoryd only ever merges its entry into the
// file, never writes the file from scratch.
//
// Install adds:
//   - mcpServers.memoryd: `memoryd mcp --config FILE`;
//   - a SessionStart hook running `memoryd context --config FILE`, whose
//     output Claude Code adds to the session's context (MEMORY.md and the
//     index of the session's project);
//   - permissions.allow for mcp__memoryd__memory_search and
//     mcp__memoryd__memory_read: in `claude -p` a tool that is not allowed
//     is refused, and these two only read. Saving and forgetting still ask.

// claudeHookMatcher is the SessionStart sources the hook runs for: a new
// session, /clear and after compaction (a resumed session has the context
// in its transcript already).
const claudeHookMatcher = "startup|clear|compact"

// claudeHookTimeout bounds the hook, in seconds: memory must never hold a
// session up.
const claudeHookTimeout = 10

// ClaudeFiles returns Claude Code's user settings file and the file holding
// its user MCP servers, given $CLAUDE_CONFIG_DIR (configDir, "" when unset).
func ClaudeFiles(home, configDir string) (settings, servers string) {
	if filepath.IsAbs(configDir) {
		return filepath.Join(configDir, "settings.json"), filepath.Join(configDir, ".claude.json")
	}
	return filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude.json")
}

// ClaudeAllowed are the permissions.allow entries install adds.
func ClaudeAllowed() []string {
	var out []string
	for _, t := range ReadOnlyTools {
		out = append(out, "mcp__"+MCPServerName+"__"+t)
	}
	return out
}

// claudeMCPEntry is memoryd's entry in mcpServers, as `claude mcp add`
// writes one.
func claudeMCPEntry(command []string) jsonObject {
	return jsonObject{{"type", "stdio"}, {"command", command[0]}, {"args", command[1:]}, {"env", jsonObject{}}}
}

// AddClaudeMCP returns ~/.claude.json's data with memoryd's MCP server in
// mcpServers (added, or replaced when it differs).
func AddClaudeMCP(data []byte, command []string) ([]byte, error) {
	root, err := parseObject("claude config", data)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(root.Value.(*hujson.Object))
	if _, err := setAt(&root, []string{"mcpServers"}, MCPServerName, claudeMCPEntry(command), unit); err != nil {
		return nil, err
	}
	return packObject("claude config", root)
}

// RemoveClaudeMCP removes memoryd's MCP server from ~/.claude.json's data,
// and mcpServers when that leaves it empty.
func RemoveClaudeMCP(data []byte) ([]byte, error) {
	root, err := parseObject("claude config", data)
	if err != nil {
		return nil, err
	}
	if !removeAt(&root, []string{"mcpServers"}, MCPServerName) {
		return data, nil
	}
	return packObject("claude config", root)
}

// claudeHook is the SessionStart hook group install adds.
func claudeHook(command string) jsonObject {
	return jsonObject{{"matcher", claudeHookMatcher}, {"hooks", []any{
		jsonObject{{"type", "command"}, {"command", command}, {"timeout", claudeHookTimeout}}}}}
}

// isClaudeHook reports whether v is a SessionStart hook group running
// `memoryd context`.
func isClaudeHook(v hujson.Value) bool {
	hooks := v.Find("/hooks")
	if hooks == nil {
		return false
	}
	arr, ok := hooks.Value.(*hujson.Array)
	if !ok || len(arr.Elements) != 1 {
		return false
	}
	cmd := arr.Elements[0].Find("/command")
	if cmd == nil {
		return false
	}
	s, ok := stringValue(*cmd)
	return ok && isMemorydCommand(s, "context")
}

// AddClaudeSettings returns settings.json's data with memoryd's
// SessionStart hook (running command) and the read-only tools allowed. A
// memoryd hook that runs another command (a moved binary) is replaced.
func AddClaudeSettings(data []byte, command string) ([]byte, error) {
	root, err := parseObject("claude settings", data)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(root.Value.(*hujson.Object))
	hook := claudeHook(command)
	hookPath := []string{"hooks", "SessionStart"}
	if v := root.Find("/hooks/SessionStart"); v != nil {
		removeFromArrayAt(&root, hookPath, func(v hujson.Value) bool { return isClaudeHook(v) && !sameJSON(v, hook) })
	}
	if _, err := addToArrayAt(&root, hookPath, []any{hook}, unit); err != nil {
		return nil, err
	}
	var allow []any
	for _, a := range ClaudeAllowed() {
		allow = append(allow, a)
	}
	if _, err := addToArrayAt(&root, []string{"permissions", "allow"}, allow, unit); err != nil {
		return nil, err
	}
	return packObject("claude settings", root)
}

// RemoveClaudeSettings removes memoryd's hooks and permissions from
// settings.json's data, and the lists and objects that leaves empty.
func RemoveClaudeSettings(data []byte) ([]byte, error) {
	root, err := parseObject("claude settings", data)
	if err != nil {
		return nil, err
	}
	allowed := ClaudeAllowed()
	a := removeFromArrayAt(&root, []string{"hooks", "SessionStart"}, isClaudeHook)
	b := removeFromArrayAt(&root, []string{"permissions", "allow"}, func(v hujson.Value) bool {
		s, ok := stringValue(v)
		return ok && slices.Contains(allowed, s)
	})
	if !a && !b {
		return data, nil
	}
	return packObject("claude settings", root)
}

// ClaudeWiring is what of memoryd's wiring Claude Code's files hold, for
// doctor.
type ClaudeWiring struct {
	MCPCommand  []string // nil when mcpServers.memoryd is missing
	HookCommand string   // "" when there is no memoryd SessionStart hook
	Hook        []string // HookCommand split into words
	Allowed     []string // the read-only tools permissions.allow holds
}

// ReadClaude reads memoryd's wiring from Claude Code's files (see
// ClaudeFiles); missing files hold nothing.
func ReadClaude(settings, servers string) (ClaudeWiring, error) {
	var w ClaudeWiring
	root, err := readObjectFile(servers)
	if err != nil {
		return w, err
	}
	if v := root.Find("/mcpServers/" + MCPServerName); v != nil {
		if c, ok := stringAt(*v, "/command"); ok {
			w.MCPCommand = append([]string{c}, stringsAt(*v, "/args")...)
		}
	}
	if root, err = readObjectFile(settings); err != nil {
		return w, err
	}
	if v := root.Find("/hooks/SessionStart"); v != nil {
		if arr, ok := v.Value.(*hujson.Array); ok {
			for _, g := range arr.Elements {
				if isClaudeHook(g) {
					w.HookCommand, _ = stringAt(g, "/hooks/0/command")
					w.Hook, _ = shellWords(w.HookCommand)
				}
			}
		}
	}
	for _, s := range stringsAt(root, "/permissions/allow") {
		if slices.Contains(ClaudeAllowed(), s) {
			w.Allowed = append(w.Allowed, s)
		}
	}
	return w, nil
}

// claudeSteps are the two files of Claude Code's wiring.
func claudeSteps(o *Options) []agentStep {
	settings, servers := ClaudeFiles(o.Home, o.ClaudeConfigDir)
	command, hook := o.MCPCommand(), o.contextCommand()
	return []agentStep{
		{what: "claude mcp", path: servers, perm: 0o600, note: "mcpServers." + MCPServerName,
			add:    func(data []byte) ([]byte, error) { return AddClaudeMCP(data, command) },
			remove: RemoveClaudeMCP, empty: isEmptyObject},
		{what: "claude settings", path: settings, perm: 0o644, note: "SessionStart hook, read-only memory tools allowed",
			add:    func(data []byte) ([]byte, error) { return AddClaudeSettings(data, hook) },
			remove: RemoveClaudeSettings, empty: isEmptyObject},
	}
}
