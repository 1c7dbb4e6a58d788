package transcript

import (
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// NewCodex reads Codex rollouts: dir is <codex home>/sessions, holding
// YYYY/MM/DD/rollout-<time>-<uuid>.jsonl. Session IDs are the slash paths below dir. Lines
// (Codex CLI 0.3x and later wrap each item; older rollouts hold the bare items):
//
//	{"timestamp":…,"type":"session_meta","payload":{"id":…,"cwd":…,"cli_version":…}}
//	{"timestamp":…,"type":"turn_context","payload":{"cwd":…,"model":…}}
//	{"timestamp":…,"type":"response_item","payload":{"type":"message","role":"user"|"assistant"|"developer",
//	 "content":[{"type":"input_text"|"output_text","text":…}]}}
//	{"timestamp":…,"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{…}"}}
//	  (also local_shell_call, custom_tool_call, web_search_call; their outputs are never read)
//	{"timestamp":…,"type":"event_msg","payload":{"type":"task_started"|"task_complete"|"turn_aborted"|…}}
//	{"timestamp":…,"type":"compacted","payload":{"message":"summary…"}}
//
// User messages Codex injects (environment context, AGENTS.md and user instructions) are not the
// user's words and are left out; so are event_msg copies of messages.
func NewCodex(dir string, opts Options) Source {
	return newJSONL("codex", dir, codexFormat{}, opts)
}

type codexFormat struct{}

func (codexFormat) sessionFile(rel string) bool {
	b := path.Base(rel)
	return strings.HasPrefix(b, "rollout-") && strings.HasSuffix(b, ".jsonl")
}

// watchDirs lists the sessions folder and its newest year, month and day folders: Codex writes
// only today's. A new day's folder shows up as an event in the month's (or year's) folder.
func (codexFormat) watchDirs(root string) []string {
	dirs := []string{root}
	dir := root
	for range 3 {
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
		if len(names) == 0 {
			break
		}
		dir = filepath.Join(dir, slices.Max(names))
		dirs = append(dirs, dir)
	}
	return dirs
}

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Action    struct {
		Command argv   `json:"command"`
		Query   string `json:"query"`
	} `json:"action"`
	Cwd     string `json:"cwd"`
	Message string `json:"message"` // compacted
}

func (codexFormat) parse(_ string, line []byte) entry {
	var l codexLine
	if !decodeLoose(line, &l) {
		return entry{}
	}
	at, _ := time.Parse(time.RFC3339Nano, l.Timestamp)
	payload := l.Payload
	kind := l.Type
	if len(payload) == 0 { // an older rollout: the line is the item itself
		payload, kind = line, "response_item"
	}
	var it codexItem
	if !decodeLoose(payload, &it) {
		return entry{}
	}
	switch kind {
	case "session_meta", "turn_context":
		return entry{dir: it.Cwd}
	case "event_msg":
		return codexEvent(it.Type)
	case "compacted":
		if t := strings.TrimSpace(it.Message); t != "" {
			return entry{msg: &Message{Role: "assistant", Time: at, Text: t, Summary: true}}
		}
		return entry{}
	case "response_item":
		return codexResponse(it, at)
	}
	return entry{}
}

func codexEvent(typ string) entry {
	var done bool
	switch typ {
	case "task_started":
	case "task_complete", "turn_aborted":
		done = true
	default:
		return entry{}
	}
	return entry{finished: &done}
}

func codexResponse(it codexItem, at time.Time) entry {
	busy := false
	var tool ToolUse
	switch it.Type {
	case "message":
		return codexMessage(it, at)
	case "function_call":
		var in toolInput
		decodeLoose([]byte(it.Arguments), &in)
		tool = ToolUse{Name: it.Name, Input: in.short()}
	case "custom_tool_call":
		tool = ToolUse{Name: it.Name}
	case "local_shell_call":
		tool = ToolUse{Name: "shell", Input: shortInput(string(it.Action.Command))}
	case "web_search_call":
		tool = ToolUse{Name: "web_search", Input: shortInput(it.Action.Query)}
	default:
		return entry{}
	}
	return entry{finished: &busy, msg: &Message{Role: "assistant", Time: at, Tools: []ToolUse{tool}}}
}

// codexInjected starts the user messages Codex writes itself.
var codexInjected = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
	"<INSTRUCTIONS>", "<permissions instructions>", "<user_shell_command>", "<turn_aborted>"}

func codexMessage(it codexItem, at time.Time) entry {
	if it.Role != "user" && it.Role != "assistant" {
		return entry{}
	}
	var text []string
	for _, c := range it.Content {
		t := strings.TrimSpace(c.Text)
		if t == "" || (it.Role == "user" && slices.ContainsFunc(codexInjected, func(p string) bool { return strings.HasPrefix(t, p) })) {
			continue
		}
		text = append(text, t)
	}
	if len(text) == 0 {
		return entry{}
	}
	done := it.Role == "assistant"
	return entry{finished: &done, msg: &Message{Role: it.Role, Time: at, Text: strings.Join(text, "\n")}}
}

// decodeLoose decodes JSON, accepting values of unexpected types in single fields (they stay
// zero), so one odd field does not lose a line.
func decodeLoose(b []byte, v any) bool {
	err := json.Unmarshal(b, v)
	var typeErr *json.UnmarshalTypeError
	return err == nil || errors.As(err, &typeErr)
}
