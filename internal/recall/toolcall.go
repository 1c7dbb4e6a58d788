package recall

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ToolCall is what the tool-call hook (`memoryd recall-tool`) reads of an
// agent's tool call: the files it is about to read or edit, or the shell
// command that just failed.
//
// The payloads it reads, each checked against the real agent:
//   - Claude Code PreToolUse (Read, Edit, Write, MultiEdit):
//     tool_input.file_path or tool_input.notebook_path;
//   - Claude Code PostToolUseFailure (Bash): tool_input.command and error;
//   - Codex PreToolUse (Bash, apply_patch): tool_input.command, a shell
//     command line or an apply_patch envelope ("*** Update File: PATH");
//   - Codex PostToolUse (Bash): tool_input.command, transcript_path,
//     turn_id and tool_use_id — the payload has no exit status, the
//     session's rollout has it (see ExitStatus);
//   - memoryd's OpenCode plugin: tool_input.filePath before a read or an
//     edit; tool_input.command and exit_code (not 0) after a bash call
//     that failed.
type ToolCall struct {
	SessionID string
	Cwd       string
	Event     string // the hook's event name, "" for the OpenCode plugin's file calls
	// Files are the files the call reads or edits, as the agent wrote
	// them (absolute, or relative to Cwd); a command's words that may be
	// files are among them (most are not: the hook's map decides).
	Files []string
	// Failed is the shell command that failed ("" when the call is not a
	// failed command), and Error what the agent said of the failure.
	Failed, Error string
	// Ran is where a Codex command's exit status is read, when the
	// payload leaves it out: Failed is then the command that ran, failed
	// or not, until Ran.Failed says.
	Ran *RolloutCall
}

// FailureEvent is the event of a failed tool call: Claude Code's, which
// the OpenCode plugin also sends.
const FailureEvent = "PostToolUseFailure"

// AfterEvent is the event after every tool call, failed or not: Codex's.
const AfterEvent = "PostToolUse"

// maxCallFiles bounds the files one call is asked about: a long command
// line's words are not all looked up.
const maxCallFiles = 16

type toolCallWire struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Event     string `json:"hook_event_name"`
	Error     string `json:"error"`
	ExitCode  int    `json:"exit_code"`
	Interrupt bool   `json:"is_interrupt"`
	Rollout   string `json:"transcript_path"`
	TurnID    string `json:"turn_id"`
	CallID    string `json:"tool_use_id"`
	ToolInput struct {
		FilePath     string          `json:"file_path"`
		NotebookPath string          `json:"notebook_path"`
		FilePathJS   string          `json:"filePath"`
		Command      json.RawMessage `json:"command"`
	} `json:"tool_input"`
}

// ParseToolCall decodes a tool-call hook's JSON payload.
func ParseToolCall(data []byte) (ToolCall, error) {
	var w toolCallWire
	if err := json.Unmarshal(data, &w); err != nil {
		return ToolCall{}, fmt.Errorf("hook input: %w", err)
	}
	c := ToolCall{SessionID: w.SessionID, Cwd: w.Cwd, Event: w.Event}
	command := commandText(w.ToolInput.Command)
	if w.Event == AfterEvent {
		c.Failed, c.Ran = command, &RolloutCall{Path: w.Rollout, TurnID: w.TurnID, CallID: w.CallID}
		return c, nil
	}
	if w.Event == FailureEvent || w.ExitCode != 0 {
		if !w.Interrupt { // the user stopped it: nothing failed
			c.Failed, c.Error = command, w.Error
		}
		return c, nil
	}
	for _, f := range []string{w.ToolInput.FilePath, w.ToolInput.NotebookPath, w.ToolInput.FilePathJS} {
		if f != "" {
			c.Files = append(c.Files, f)
		}
	}
	c.Files = append(c.Files, commandFiles(command)...)
	if len(c.Files) > maxCallFiles {
		c.Files = c.Files[:maxCallFiles]
	}
	return c, nil
}

// commandText is a command as a string: Codex and Claude Code send one, an
// older Codex sent argv.
func commandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		return strings.Join(argv, " ")
	}
	return ""
}

// patchHeaders start the lines of an apply_patch envelope that name a file.
var patchHeaders = []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "}

// commandFiles are the files a command names: an apply_patch envelope's
// files, else the command's words that look like files (a dot or a slash
// in them, not a flag or an assignment), each once.
func commandFiles(command string) []string {
	if command == "" {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	patch := false
	for _, line := range strings.Split(command, "\n") {
		for _, h := range patchHeaders {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), h); ok {
				patch = true
				add(strings.TrimSpace(rest))
			}
		}
	}
	if patch {
		return out
	}
	for _, w := range commandWords(command) {
		if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") && strings.ContainsAny(w, "./") {
			add(w)
		}
	}
	return out
}

// commandWords splits a command line into words: on blanks and the shell's
// operators, quotes dropped. It is not a shell parser, and need not be:
// a word that is not a file finds nothing.
func commandWords(command string) []string {
	return strings.FieldsFunc(command, func(r rune) bool {
		switch r {
		case ' ', '\t', '\n', '\r', ';', '|', '&', '(', ')', '<', '>', '"', '\'', '`':
			return true
		}
		return false
	})
}
