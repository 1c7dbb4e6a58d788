package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tailscale/hujson"
)

// Codex (0.169) runs hooks from $CODEX_HOME/hooks.json, but only the ones
// the user trusts: an untrusted hook is skipped without a word. Codex
// records trust in config.toml, one table a hook:
//
//	[hooks.state."<hooks.json's path>:<event>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// where the hash is sha256 of the hook's normalized definition as compact
// JSON with sorted keys: the event's label, the group's matcher (none for
// UserPromptSubmit) and the one handler with its timeout, async false and
// no unset field (Codex's hooks discovery, command_hook_hash). memoryd
// writes its two hooks into hooks.json and their trust into its block of
// config.toml, so the user confirms nothing. A hook edited by hand no
// longer matches its hash and Codex skips it again: doctor runs the hooks
// and checks their trust.
//
// The hooks are SessionStart, running `memoryd context --project-only`
// (the project's index; the global one is in AGENTS.md), UserPromptSubmit,
// running `memoryd recall --project-only`, and PreToolUse on Bash and
// apply_patch, running `memoryd recall-tool`: Codex reads files with shell
// commands (cat, sed -n) and edits them with apply_patch, whose envelope
// names each file ("*** Update File: PATH"), both in tool_input.command.
// And PostToolUse on Bash, running the same `memoryd recall-tool`: Codex
// 0.169's payload gives a command's output but not its exit status, which
// the session's rollout (transcript_path) holds by the time the hook runs;
// recall-tool reads it there only when a fact names the command.

// codexHook is one hook memoryd adds to Codex.
type codexHook struct {
	event, label string // hooks.json's event name, Codex's key label
	sub          string // the memoryd subcommand it runs
	matcher      string // "" for none
}

var codexHooks = []codexHook{
	{"SessionStart", "session_start", "context", "startup|clear"},
	{"UserPromptSubmit", "user_prompt_submit", "recall", ""},
	{"PreToolUse", "pre_tool_use", "recall-tool", codexToolMatcher},
	{"PostToolUse", "post_tool_use", "recall-tool", codexFailureMatcher},
}

// codexFailureMatcher is the tools whose ends run recall-tool: the shell,
// whose failed commands facts may name.
const codexFailureMatcher = "Bash"

// codexToolMatcher is the tools whose calls run recall-tool: the shell
// (which reads files) and apply_patch (which edits them).
const codexToolMatcher = "Bash|apply_patch"

// codexHookTimeout bounds each hook, in seconds.
const codexHookTimeout = 10

// codexHookGroup is the hooks.json group for h running command.
func codexHookGroup(h codexHook, command string) jsonObject {
	handler := jsonObject{{"type", "command"}, {"command", command}, {"timeout", codexHookTimeout}}
	if h.matcher == "" {
		return jsonObject{{"hooks", []any{handler}}}
	}
	return jsonObject{{"matcher", h.matcher}, {"hooks", []any{handler}}}
}

// AddCodexHooks returns hooks.json's data with memoryd's hooks, commands
// giving each subcommand's command line ("context", "recall",
// "recall-tool"). A memoryd
// hook running another command (a moved binary) is replaced.
func AddCodexHooks(data []byte, commands map[string]string) ([]byte, error) {
	root, err := parseObject("codex hooks", data)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(root.Value.(*hujson.Object))
	for _, h := range codexHooks {
		if err := putHook(&root, h.event, h.sub, codexHookGroup(h, commands[h.sub]), unit); err != nil {
			return nil, err
		}
	}
	return packObject("codex hooks", root)
}

// RemoveCodexHooks returns hooks.json's data without memoryd's hooks, and
// without the lists and objects that leaves empty.
func RemoveCodexHooks(data []byte) ([]byte, error) {
	root, err := parseObject("codex hooks", data)
	if err != nil {
		return nil, err
	}
	removed := false
	for _, h := range codexHooks {
		if removeFromArrayAt(&root, []string{"hooks", h.event}, func(v hujson.Value) bool { return isMemorydHook(v, h.sub) }) {
			removed = true
		}
	}
	if !removed {
		return data, nil
	}
	return packObject("codex hooks", root)
}

// CodexHook is one of memoryd's hooks as hooks.json holds it, with the
// trust Codex needs for it.
type CodexHook struct {
	Event   string // SessionStart, UserPromptSubmit, PreToolUse
	Command string
	Key     string // its [hooks.state] key
	Hash    string // the trusted_hash that trusts it as it is
}

// hooksFile is hooks.json as Codex reads it.
type hooksFile struct {
	Hooks map[string][]struct {
		Matcher *string `json:"matcher"`
		Hooks   []struct {
			Type          string  `json:"type"`
			Command       string  `json:"command"`
			Timeout       *int    `json:"timeout"`
			Async         bool    `json:"async"`
			StatusMessage *string `json:"statusMessage"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// CodexHooks returns memoryd's hooks in hooks.json's data (read from
// path, which keys their trust), in the order of codexHooks; missing ones
// are left out.
func CodexHooks(path string, data []byte) ([]CodexHook, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	std, err := hujson.Standardize(bytes.Clone(data))
	if err != nil {
		return nil, fmt.Errorf("codex hooks %s: %w", path, err)
	}
	var f hooksFile
	if err := json.Unmarshal(std, &f); err != nil {
		return nil, fmt.Errorf("codex hooks %s: %w", path, err)
	}
	var out []CodexHook
	for _, h := range codexHooks {
		for gi, g := range f.Hooks[h.event] {
			if len(g.Hooks) != 1 || g.Hooks[0].Type != "command" || !isMemorydCommand(g.Hooks[0].Command, h.sub) {
				continue
			}
			handler := map[string]any{"type": "command", "command": g.Hooks[0].Command, "async": g.Hooks[0].Async, "timeout": 600}
			if t := g.Hooks[0].Timeout; t != nil {
				handler["timeout"] = max(*t, 1)
			}
			if m := g.Hooks[0].StatusMessage; m != nil {
				handler["statusMessage"] = *m
			}
			identity := map[string]any{"event_name": h.label, "hooks": []any{handler}}
			if g.Matcher != nil && h.event != "UserPromptSubmit" {
				identity["matcher"] = *g.Matcher
			}
			out = append(out, CodexHook{Event: h.event, Command: g.Hooks[0].Command,
				Key: path + ":" + h.label + ":" + strconv.Itoa(gi) + ":0", Hash: codexHash(identity)})
			break
		}
	}
	return out, nil
}

// codexHash is Codex's version_for_toml of a hook identity: sha256 of its
// compact JSON, keys sorted (encoding/json sorts map keys), no HTML
// escaping (serde_json does none).
func codexHash(identity map[string]any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(identity)
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CodexHookTrusted reports whether config.toml's data trusts h as it is
// (Codex runs it), and whether the file could be read as TOML.
func CodexHookTrusted(config []byte, h CodexHook) (trusted, ok bool) {
	doc, err := parseTOML(config)
	if err != nil {
		return false, false
	}
	state, _ := tomlStates(doc)[h.Key].(map[string]any)
	hash, _ := state["trusted_hash"].(string)
	enabled, set := state["enabled"].(bool)
	return hash == h.Hash && (!set || enabled), true
}
