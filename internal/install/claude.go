package install

import (
	"github.com/memoryd/memoryd/internal/shell"
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
//   - a UserPromptSubmit hook running `memoryd recall --config FILE`, whose
//     answer (hookSpecificOutput.additionalContext) brings the few facts
//     relevant to each prompt that the session has not seen;
//   - a PreToolUse hook on Read|Edit|Write|MultiEdit running `memoryd
//     recall-tool --config FILE`, whose answer brings the facts that cite
//     or name the file the tool call reads or edits;
//   - a PostToolUseFailure hook on Bash running the same command, whose
//     answer brings the facts that mention the command that failed
//     ("make migrate"); a command that succeeds starts no process;
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

// claudePromptHook is the UserPromptSubmit hook group install adds (the
// event has no matcher).
func claudePromptHook(command string) jsonObject {
	return jsonObject{{"hooks", []any{
		jsonObject{{"type", "command"}, {"command", command}, {"timeout", claudeHookTimeout}}}}}
}

// claudeHookEvents are the hook events memoryd wires and the memoryd
// subcommand each runs.
var claudeHookEvents = []struct{ event, sub string }{{"SessionStart", "context"}, {"UserPromptSubmit", "recall"}, {"PreToolUse", "recall-tool"}, {"PostToolUseFailure", "recall-tool"}}

// claudeToolMatcher is the tools whose calls the PreToolUse hook runs
// for: those that read or edit one file. Every other tool call costs no
// process.
const claudeToolMatcher = "Read|Edit|Write|MultiEdit"

// claudeFailureMatcher is the tools whose failures the PostToolUseFailure
// hook runs for: shell commands.
const claudeFailureMatcher = "Bash"

// claudeToolHook is the PreToolUse (or PostToolUseFailure) hook group
// install adds: matcher, then one handler running command.
func claudeToolHook(matcher, command string) jsonObject {
	return jsonObject{{"matcher", matcher}, {"hooks", []any{
		jsonObject{{"type", "command"}, {"command", command}, {"timeout", claudeHookTimeout}}}}}
}

// isMemorydHook reports whether v is a hook group of one command running
// `memoryd SUB`.
func isMemorydHook(v hujson.Value, sub string) bool {
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
	return ok && isMemorydCommand(s, sub)
}

// isClaudeHook reports whether v is a SessionStart hook group running
// `memoryd context`.
func isClaudeHook(v hujson.Value) bool { return isMemorydHook(v, "context") }

// putHook puts group into the hook list of event, replacing a memoryd
// group running sub that differs (a moved binary).
func putHook(root *hujson.Value, event, sub string, group jsonObject, unit string) error {
	path := []string{"hooks", event}
	if v := root.Find("/hooks/" + event); v != nil {
		removeFromArrayAt(root, path, func(v hujson.Value) bool { return isMemorydHook(v, sub) && !sameJSON(v, group) })
	}
	_, err := addToArrayAt(root, path, []any{group}, unit)
	return err
}

// AddClaudeSettings returns settings.json's data with memoryd's
// SessionStart hook (running command), its UserPromptSubmit hook (running
// prompt[0]; none when it is "" or missing), its PreToolUse and
// PostToolUseFailure hooks (running prompt[1], likewise) and the read-only
// tools allowed. A
// memoryd hook that runs another command (a moved binary) is replaced.
func AddClaudeSettings(data []byte, command string, prompt ...string) ([]byte, error) {
	root, err := parseObject("claude settings", data)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(root.Value.(*hujson.Object))
	if err := putHook(&root, "SessionStart", "context", claudeHook(command), unit); err != nil {
		return nil, err
	}
	if len(prompt) > 0 && prompt[0] != "" {
		if err := putHook(&root, "UserPromptSubmit", "recall", claudePromptHook(prompt[0]), unit); err != nil {
			return nil, err
		}
	}
	if len(prompt) > 1 && prompt[1] != "" {
		if err := putHook(&root, "PreToolUse", "recall-tool", claudeToolHook(claudeToolMatcher, prompt[1]), unit); err != nil {
			return nil, err
		}
		if err := putHook(&root, "PostToolUseFailure", "recall-tool", claudeToolHook(claudeFailureMatcher, prompt[1]), unit); err != nil {
			return nil, err
		}
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
	removed := false
	for _, h := range claudeHookEvents {
		if removeFromArrayAt(&root, []string{"hooks", h.event}, func(v hujson.Value) bool { return isMemorydHook(v, h.sub) }) {
			removed = true
		}
	}
	if removeFromArrayAt(&root, []string{"permissions", "allow"}, func(v hujson.Value) bool {
		s, ok := stringValue(v)
		return ok && slices.Contains(allowed, s)
	}) {
		removed = true
	}
	if !removed {
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
	// PromptCommand is the memoryd UserPromptSubmit hook's command, ""
	// when there is none.
	PromptCommand string
	Allowed       []string // the read-only tools permissions.allow holds
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
					w.Hook, _ = shell.Words(w.HookCommand)
				}
			}
		}
	}
	if v := root.Find("/hooks/UserPromptSubmit"); v != nil {
		if arr, ok := v.Value.(*hujson.Array); ok {
			for _, g := range arr.Elements {
				if isMemorydHook(g, "recall") {
					w.PromptCommand, _ = stringAt(g, "/hooks/0/command")
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
	command, hook, prompt := o.MCPCommand(), o.contextCommand(), o.recallCommand()
	note := "SessionStart, UserPromptSubmit, PreToolUse (" + claudeToolMatcher + ") and PostToolUseFailure (" + claudeFailureMatcher + ") hooks, read-only memory tools allowed"
	if !o.KeepClaudeMemory {
		note += ", Claude Code's own auto-memory off (memoryd install --claude --keep-claude-memory keeps it)"
	}
	return []agentStep{
		{what: "claude mcp", path: servers, perm: 0o600, note: "mcpServers." + MCPServerName,
			add:    func(data []byte) ([]byte, error) { return AddClaudeMCP(data, command) },
			remove: RemoveClaudeMCP, empty: isEmptyObject, json: true},
		{what: "claude settings", path: settings, perm: 0o644, note: note,
			add: func(data []byte) ([]byte, error) {
				out, err := AddClaudeSettings(data, hook, prompt, o.hookCommand("recall-tool"))
				if err != nil || o.KeepClaudeMemory {
					return out, err
				}
				root, err := parseObject("claude settings", out)
				if err != nil {
					return nil, err
				}
				if err := o.disableClaudeMemory(&root, settings, indentUnit(root.Value.(*hujson.Object))); err != nil {
					return nil, err
				}
				return packObject("claude settings", root)
			},
			remove: func(data []byte) ([]byte, error) {
				out, err := RemoveClaudeSettings(data)
				if err != nil {
					return nil, err
				}
				root, err := parseObject("claude settings", out)
				if err != nil {
					return nil, err
				}
				if changed, err := o.restoreClaudeMemory(&root, settings); err != nil || !changed {
					return out, err
				}
				return packObject("claude settings", root)
			},
			empty: isEmptyObject, json: true},
	}
}
