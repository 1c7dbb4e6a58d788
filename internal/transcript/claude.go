package transcript

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// NewClaude reads Claude Code's transcripts: dir is <claude config dir>/projects, holding one
// folder per project and one <session uuid>.jsonl per session. Session IDs are the slash paths
// "<project folder>/<file>.jsonl". Lines (Claude Code 1.x–2.x):
//
//	{"type":"user","cwd":…,"sessionId":…,"uuid":…,"timestamp":"2025-…Z","isSidechain":false,
//	 "isMeta":true?,"isCompactSummary":true?,"message":{"role":"user","content":"…" or [blocks]}}
//	{"type":"assistant",…,"message":{"id":"msg_…","role":"assistant","stop_reason":…,
//	 "content":[{"type":"text","text":…},{"type":"tool_use","name":"Bash","input":{…}},
//	            {"type":"thinking",…}]}}
//	{"type":"summary","summary":"title","leafUuid":…}, and system, file-history-snapshot, …
//
// Tool results arrive as user lines with tool_result blocks; they are never read. Meta lines,
// slash-command echoes and interruption notices are not the user's words. Sidechain lines (old
// versions kept sub-agent turns inline) are skipped; agent-*.jsonl files are sub-agent sessions
// (ParentID set). A compact summary is a Summary message.
func NewClaude(dir string, opts Options) Source {
	return newJSONL("claude", dir, claudeFormat{}, opts)
}

type claudeFormat struct{}

func (claudeFormat) sessionFile(rel string) bool {
	d, f := path.Split(rel)
	return d != "" && !strings.Contains(strings.TrimSuffix(d, "/"), "/") && strings.HasSuffix(f, ".jsonl")
}

// watchDirs lists the projects folder and each project's folder.
func (claudeFormat) watchDirs(root string) []string {
	dirs := []string{root}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(root, e.Name()))
		}
	}
	return dirs
}

type claudeLine struct {
	Type             string `json:"type"`
	Timestamp        string `json:"timestamp"`
	Cwd              string `json:"cwd"`
	SessionID        string `json:"sessionId"`
	IsSidechain      bool   `json:"isSidechain"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Summary          string `json:"summary"`
	Message          struct {
		ID         string        `json:"id"`
		Role       string        `json:"role"`
		Content    claudeContent `json:"content"`
		StopReason string        `json:"stop_reason"`
	} `json:"message"`
}

// claudeContent is a message's content: a string, or blocks. Block fields not named here (a tool
// result's content, a thinking block's text) are skipped by the decoder, never kept.
type claudeContent []claudeBlock

type claudeBlock struct {
	Type  string    `json:"type"`
	Text  string    `json:"text"`
	Name  string    `json:"name"`
	Input toolInput `json:"input"`
}

// UnmarshalJSON never fails: content of another shape is left empty.
func (c *claudeContent) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil {
		*c = claudeContent{{Type: "text", Text: s}}
		return nil
	}
	var blocks []claudeBlock
	if len(b) > 0 && b[0] == '[' && decodeLoose(b, &blocks) {
		*c = blocks
	}
	return nil
}

func (claudeFormat) parse(rel string, line []byte) entry {
	var l claudeLine
	if !decodeLoose(line, &l) {
		return entry{}
	}
	e := entry{dir: l.Cwd}
	if l.Type == "summary" {
		e.title = l.Summary
		return e
	}
	if l.IsSidechain {
		if strings.HasPrefix(path.Base(rel), "agent-") && l.SessionID != "" {
			e.parent = path.Join(path.Dir(rel), l.SessionID+".jsonl")
		} else {
			e.skip = true
		}
	}
	at, _ := time.Parse(time.RFC3339Nano, l.Timestamp)
	switch l.Type {
	case "user":
		return claudeUser(e, l, at)
	case "assistant":
		return claudeAssistant(e, l, at)
	}
	return e
}

func claudeUser(e entry, l claudeLine, at time.Time) entry {
	var text []string
	results := false
	for _, b := range l.Message.Content {
		switch b.Type {
		case "text":
			if t := strings.TrimSpace(b.Text); t != "" && !claudeNoise(t) {
				text = append(text, t)
			}
		case "tool_result":
			results = true
		}
	}
	if l.IsMeta {
		return e
	}
	if len(text) > 0 || results {
		e.finished = new(bool) // the agent is at work again
	}
	if len(text) > 0 {
		e.msg = &Message{Role: "user", Time: at, Text: strings.Join(text, "\n"), Summary: l.IsCompactSummary}
	}
	return e
}

// claudeNoise reports text Claude Code writes into user lines itself.
func claudeNoise(t string) bool {
	for _, p := range []string{"<command-name>", "<command-message>", "<command-args>", "<local-command-", "[Request interrupted"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func claudeAssistant(e entry, l claudeLine, at time.Time) entry {
	var text []string
	var tools []ToolUse
	for _, b := range l.Message.Content {
		switch b.Type {
		case "text":
			if t := strings.TrimSpace(b.Text); t != "" {
				text = append(text, t)
			}
		case "tool_use":
			tools = append(tools, ToolUse{Name: b.Name, Input: b.Input.short()})
		}
	}
	if len(text) == 0 && len(tools) == 0 {
		return e
	}
	done := len(tools) == 0 && l.Message.StopReason != "tool_use"
	e.finished = &done
	e.msg = &Message{ID: l.Message.ID, Role: "assistant", Time: at, Text: strings.Join(text, "\n"), Tools: tools}
	return e
}

// toolInput holds the few fields of a tool call's input that say what it did (Claude Code names
// them in snake_case, OpenCode in camelCase, Codex's shell takes an argv). Other fields, such as
// a file's new content, are skipped by the decoder.
type toolInput struct {
	Command     argv   `json:"command"`
	FilePath    string `json:"file_path"`
	FilePath2   string `json:"filePath"`
	Path        string `json:"path"`
	Pattern     string `json:"pattern"`
	URL         string `json:"url"`
	Query       string `json:"query"`
	Description string `json:"description"`
}

func (in toolInput) short() string {
	for _, v := range []string{string(in.Command), in.FilePath, in.FilePath2, in.Path, in.Pattern, in.URL, in.Query, in.Description} {
		if v != "" {
			return shortInput(v)
		}
	}
	return ""
}

// argv is a command given as a string or as an argument list; a shell wrapper ("bash -lc") is
// dropped.
type argv string

func (a *argv) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*a = argv(s)
		return nil
	}
	var list []string
	if json.Unmarshal(b, &list) != nil {
		return nil // some other shape: ignore it
	}
	if len(list) == 3 && (list[1] == "-lc" || list[1] == "-c") {
		list = list[2:]
	}
	*a = argv(strings.Join(list, " "))
	return nil
}
