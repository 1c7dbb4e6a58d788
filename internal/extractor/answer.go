package extractor

import (
	"github.com/memoryd/memoryd/internal/index"

	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Proposal is one memory the model proposed, as it wrote it.
type Proposal struct {
	Action      string `json:"action"` // "create" or "update"; "" is read as create
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Body        string `json:"body"`
	File        string `json:"file,omitempty"` // tolerated: a model may name the file it updates
	Project     string `json:"project,omitempty"`
	// Cites are the paths, relative to the project's root, of the files
	// the fact rests on, as the model wrote them: nothing checked yet
	// (stamp records those that are files inside the root).
	Cites []string `json:"cites,omitempty"`
	// Supersedes names an existing memory (file or name) that a created
	// fact makes untrue: it is kept, marked superseded, out of the index.
	Supersedes string `json:"supersedes,omitempty"`
	// Scope "team" marks a created fact about the repository for the
	// project's team memory (offered only in a project that has one).
	Scope string `json:"scope,omitempty"`
}

// maxCites is the most cited paths read from one proposal.
const maxCites = 20

// ParseAnswer reads the model's answer: {"memories": [...]}, or a bare array
// of memories, optionally inside a markdown code fence or with prose around
// it. An object with another single list-valued key is read the same way. A
// blank answer holds no memories. Fields that are not strings are ignored
// (their proposal then fails the gate).
func ParseAnswer(text string) ([]Proposal, error) {
	raw, err := answerJSON(text)
	if err != nil || raw == nil {
		return nil, err
	}
	var items []json.RawMessage
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("model answer: %w", err)
		}
	} else {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("model answer: %w", err)
		}
		list, ok := obj["memories"]
		if !ok {
			list, ok = onlyList(obj)
		}
		if !ok {
			if _, single := obj["body"]; single {
				items = []json.RawMessage{raw}
			} else {
				return nil, fmt.Errorf("model answer: no \"memories\" list in %s", clip(string(raw), 200))
			}
		} else if err := json.Unmarshal(list, &items); err != nil && string(list) != "null" {
			return nil, fmt.Errorf("model answer: \"memories\" is not a list: %w", err)
		}
	}
	out := make([]Proposal, 0, len(items))
	for _, it := range items {
		out = append(out, proposal(it))
	}
	return out, nil
}

// onlyList returns the value of the object's one key whose value is a list.
func onlyList(obj map[string]json.RawMessage) (json.RawMessage, bool) {
	var found json.RawMessage
	for _, v := range obj {
		if t := strings.TrimSpace(string(v)); strings.HasPrefix(t, "[") {
			if found != nil {
				return nil, false
			}
			found = v
		}
	}
	return found, found != nil
}

// proposal reads one item leniently, string fields only.
func proposal(raw json.RawMessage) Proposal {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return Proposal{}
	}
	// Everything from the model is cleaned of control and bidirectional
	// characters before it can reach a file, MEMORY.md or a commit
	// message; "file" is only looked up, never written as given.
	s := func(k string, multiline bool, limit int) string {
		v, _ := m[k].(string)
		return index.CleanText(v, multiline, limit)
	}
	file, _ := m["file"].(string)
	return Proposal{Action: s("action", false, 40), Type: s("type", false, 40), Name: s("name", false, 200),
		Description: s("description", false, 2000), Body: s("body", true, 4*maxBody), File: file,
		Project: s("project", false, 80), Cites: citesOf(m["cites"]),
		Supersedes: s("supersedes", false, 200), Scope: s("scope", false, 20)}
}

// citesOf reads a proposal's "cites": a list of strings (or one string),
// each cleaned, at most maxCites; anything else is none.
func citesOf(v any) []string {
	var list []any
	switch t := v.(type) {
	case string:
		list = []any{t}
	case []any:
		list = t
	}
	var out []string
	for _, it := range list {
		if p, ok := it.(string); ok && len(out) < maxCites {
			if p = index.CleanText(strings.TrimSpace(p), false, 300); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// answerJSON finds the JSON value in an answer: the whole text, the inside
// of a code fence, or the span from the first '{' or '[' to the last
// matching bracket. nil means a blank answer.
func answerJSON(text string) ([]byte, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, nil
	}
	if inner, ok := fenced(t); ok {
		t = inner
	}
	if json.Valid([]byte(t)) && (t[0] == '{' || t[0] == '[') {
		return []byte(t), nil
	}
	start := strings.IndexAny(t, "{[")
	if start < 0 {
		return nil, errors.New("model answer holds no JSON: " + clip(t, 200))
	}
	closer := "}"
	if t[start] == '[' {
		closer = "]"
	}
	end := strings.LastIndex(t, closer)
	if end > start && json.Valid([]byte(t[start:end+1])) {
		return []byte(t[start : end+1]), nil
	}
	return nil, errors.New("model answer is not valid JSON: " + clip(index.CleanText(t, true, 0), 200))
}

// fenced returns the content of the first ``` code fence in t.
func fenced(t string) (string, bool) {
	i := strings.Index(t, "```")
	if i < 0 {
		return "", false
	}
	rest := t[i+3:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return "", false
	}
	rest = rest[nl+1:]
	j := strings.Index(rest, "```")
	if j < 0 {
		return strings.TrimSpace(rest), true
	}
	return strings.TrimSpace(rest[:j]), true
}
