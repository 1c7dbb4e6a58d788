// Package recall chooses what an agent is told at the moment of need: the
// few facts that bear on the prompt in hand and that the session has not
// seen yet, within a byte budget, under a one-line preface. The choice is
// pure — the command (`memoryd recall`) searches and reads the files, and
// hands the candidates here. The package also keeps the hook's side: its
// input and output (ReadInput, Output), what a session loaded at its start
// (Loaded), and the record of what each session was given, in the state
// folder (ReadSessions, RecordGiven).
//
// Relevance is deliberately strict: a fact is offered only when it holds
// enough of the prompt's content words (stop words, greetings and question
// words dropped), so "thanks, that's all" or "yes, go ahead" offer nothing,
// and a prompt that shares one common word with a fact does not drag it in.
package recall

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Input is what an agent's prompt hook sends on standard input. Claude
// Code's and Codex's UserPromptSubmit payloads carry these keys (and more,
// ignored); memoryd's OpenCode plugin sends the same keys.
type Input struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Prompt    string `json:"prompt"`
	// Event is the hook's event name ("UserPromptSubmit"), "" when the
	// caller is not a hook (the OpenCode plugin).
	Event string `json:"hook_event_name"`
}

// ParseInput decodes a hook's JSON payload.
func ParseInput(data []byte) (Input, error) {
	var in Input
	if err := json.Unmarshal(data, &in); err != nil {
		return Input{}, fmt.Errorf("hook input: %w", err)
	}
	return in, nil
}

// Fact is a candidate fact as the search found it and its file reads.
type Fact struct {
	File        string // relative to the memory folder
	Title       string // the index's title for it (index.TitleOf)
	Description string
	Body        string
	// Stale is the note that the files the fact cites changed since it
	// was written ("may be stale: src/app.go changed since 2026-11-02"),
	// shown after its line; "" for none.
	Stale string
}

// Preface is the first line of every injection: what the text is and how
// to find more.
const Preface = "From the user's long-term memory (memoryd), facts that may bear on this prompt — " +
	"the memory_search tool (or `memoryd search WORDS`) finds more:"

// MaxFacts is the most facts one prompt is given.
const MaxFacts = 3

// bodyBytes is the most of one fact's body shown.
const bodyBytes = 600

// Relevant reports whether f holds enough of words, the prompt's content
// words (see Words): all of them when there are one or two, else at least
// two — a fact sharing a single word with a long prompt is a coincidence
// more often than not.
func Relevant(f Fact, words []string) bool {
	if len(words) == 0 {
		return false
	}
	need := min(2, len(words))
	have := map[string]bool{}
	for _, w := range tokens(f.Title + " " + f.Description + " " + f.File + " " + f.Body) {
		have[w] = true
	}
	n := 0
	for _, w := range words {
		if have[w] {
			n++
		}
	}
	return n >= need
}

// Pick returns, in order, the candidates that are relevant to prompt and
// not skipped (already loaded or given in this session), at most MaxFacts.
func Pick(prompt string, candidates []Fact, skip func(file string) bool) []Fact {
	words := Words(prompt)
	var out []Fact
	for _, f := range candidates {
		if len(out) == MaxFacts {
			break
		}
		if skip(f.File) || !Relevant(f, words) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Render returns the preface and as many of facts as fit in maxBytes, and
// the facts it shows; "" and nil when not even one fits. Each fact is its
// index line, then its body, indented and cut to what is left.
func Render(facts []Fact, maxBytes int) (string, []Fact) {
	var b strings.Builder
	b.WriteString(Preface + "\n")
	var shown []Fact
	for _, f := range facts {
		head := "- [" + oneLine(f.Title) + "](" + f.File + ")"
		if d := oneLine(f.Description); d != "" {
			head += " — " + d
		}
		if f.Stale != "" {
			head += " (" + oneLine(f.Stale) + ")"
		}
		head += "\n"
		if b.Len()+len(head) > maxBytes {
			break
		}
		b.WriteString(head)
		shown = append(shown, f)
		room := min(maxBytes-b.Len(), bodyBytes)
		if body := indentBody(f.Body, room); body != "" {
			b.WriteString(body)
		}
	}
	if len(shown) == 0 {
		return "", nil
	}
	return b.String(), shown
}

// indentBody returns body's non-blank lines, each indented by two spaces,
// cut to at most room bytes (an ellipsis marks a cut); "" when less than a
// useful line fits.
func indentBody(body string, room int) string {
	const minUseful = 24
	if room < minUseful {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if strings.TrimSpace(line) == "" {
			continue
		}
		line = "  " + line + "\n"
		if b.Len()+len(line) > room {
			left := room - b.Len() - len("…\n")
			if left >= minUseful {
				b.WriteString(cutRunes(line, left) + "…\n")
			}
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// cutRunes cuts s to at most n bytes at a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
