package transcript

import (
	"strings"
	"time"
	"unicode/utf8"
)

// OpenCode keeps a message's metadata and its parts apart (rows in the database, files in the
// legacy storage) with the same JSON shapes, seen in OpenCode 1.18:
//
//	message: {"role":"user","time":{"created":ms},"agent":…,"model":…,"summary":{"diffs":[…]}}
//	         {"role":"assistant","parentID":…,"time":{"created":ms,"completed":ms},"finish":"stop",
//	          "error":{"name":"APIError",…},"summary":true (compaction), "mode":"compaction",…}
//	part:    {"type":"text","text":…,"synthetic":true,"ignored":true,"time":{…}}
//	         {"type":"tool","tool":"bash","callID":…,"state":{"status":"completed",
//	          "input":{"command":…},"output":…,"metadata":…,"title":…}}
//	         step-start, step-finish, reasoning, file, compaction, patch, agent, subtask, …
//
// ocMessage and ocPart are what this package reads of them.

// ocMessage is the metadata of one OpenCode message.
type ocMessage struct {
	ID      string
	Created int64 // time.created, Unix ms (the time_created column)
	Role    string
	Done    bool // assistant: time.completed or error is set
	Summary bool // assistant: a compaction summary
}

// ocPart is the part of an OpenCode message part this package uses.
type ocPart struct {
	Type      string
	Text      string // type "text"
	Synthetic bool
	Ignored   bool
	Tool      string // type "tool"
	Input     string // type "tool": one short field of state.input (see toolInputKeys)
}

// toolInputKeys are the state.input fields that say briefly what a tool call did, in order of
// preference; the first present is kept.
var toolInputKeys = []string{"command", "filePath", "path", "pattern", "url", "query", "description"}

// settledCount returns how many of msgs (oldest first) are settled: everything up to and
// including the last finished assistant message before the first unfinished one. User messages
// after it wait for their reply, because OpenCode writes a message's row before its parts.
func settledCount(msgs []ocMessage) int {
	n := 0
	for i, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		if !m.Done {
			break
		}
		n = i + 1
	}
	return n
}

// buildMessage turns a message and its parts into a Message; ok is false when nothing in it is
// worth reading (no text, no tool calls).
func buildMessage(m ocMessage, parts []ocPart) (msg Message, ok bool) {
	var text []string
	var tools []ToolUse
	for _, p := range parts {
		switch p.Type {
		case "text":
			if p.Ignored || (p.Synthetic && m.Role == "user") {
				continue
			}
			if t := strings.TrimSpace(p.Text); t != "" {
				text = append(text, t)
			}
		case "tool":
			if m.Role == "assistant" && p.Tool != "" {
				tools = append(tools, ToolUse{Name: p.Tool, Input: shortInput(p.Input)})
			}
		}
	}
	if (m.Role != "user" && m.Role != "assistant") || (len(text) == 0 && len(tools) == 0) {
		return Message{}, false
	}
	return Message{
		ID:      m.ID,
		Role:    m.Role,
		Time:    time.UnixMilli(m.Created),
		Text:    strings.Join(text, "\n"),
		Tools:   tools,
		Summary: m.Summary,
		Mark:    Watermark{Time: m.Created, ID: m.ID},
	}, true
}

// userText is the text a person typed in a user message's parts.
func userText(parts []ocPart) string {
	m, ok := buildMessage(ocMessage{Role: "user"}, parts)
	if !ok {
		return ""
	}
	return truncate(m.Text, maxLastUserText)
}

// shortInput makes a tool input one short line. A cut never keeps the start of a word: a token
// cut by the limit ("ghp_aB3dE…") would be too short for the extractor's secret detector to
// know, which runs later, on what is left. So the word the limit falls in goes whole; a single
// word longer than the limit (a URL, a connection string) keeps what comes before its query
// string, or else its last "/", ";" or "&" before the limit, or nothing.
func shortInput(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= MaxToolInput {
		return s
	}
	const ellipsis = "…"
	cut := MaxToolInput - len(ellipsis) // s[:cut] fits; s[cut] is the first byte that does not
	if i := strings.LastIndexByte(s[:cut+1], ' '); i > 0 {
		return s[:i] + ellipsis
	}
	if i := strings.IndexByte(s[:cut], '?'); i > 0 {
		return s[:i] + ellipsis
	}
	return s[:strings.LastIndexAny(s[:cut], "/;&")+1] + ellipsis
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…"
	cut := n - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
