package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestJSONOnEmptyStore runs every command that prints data with --json on
// an empty store (show and why on its one uncommitted fact): each prints
// one valid JSON value on stdout and no null anywhere in it — an empty
// list is [], never null.
func TestJSONOnEmptyStore(t *testing.T) {
	w := newWorld(t)
	srv := llmtest.NewServer(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: `{"ops": []}`} })
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL="+srv.OpenAIURL(),
		"MEMORY_EXTRACT_MODEL=openai/"+llmtest.ModelID, "PATH="+onlyGit(t))
	cmds := [][]string{
		{"doctor", "--json"},
		{"history", "--json"},
		{"review", "--json"},
		{"extract", "--json"},
		{"compact", "--json"},
		{"status", "--json"},
		{"search", "--json", "anything"},
		{"list", "--json"},
		{"list", "--json", "--all"},
		{"config", "--json"},
		{"context", "--json"},
		{"check", "--json"},
	}
	for _, args := range cmds {
		stdout, stderr, code := w.runCmd2(nil, args...)
		assertJSON(t, strings.Join(args, " "), stdout, stderr, code)
	}
	w.write("user-tabs.md", memoryFile("user", "tabs", "Prefers tabs", "Tabs, not spaces."))
	for _, args := range [][]string{{"show", "--json", "tabs"}, {"why", "--json", "tabs"}} {
		stdout, stderr, code := w.runCmd2(nil, args...)
		assertJSON(t, strings.Join(args, " "), stdout, stderr, code)
	}
}

// assertJSON fails unless out is one JSON value with no null in it.
func assertJSON(t *testing.T, what, out, stderr string, code int) {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&v); err != nil {
		t.Errorf("%s: not JSON (exit %d): %v\nstdout:\n%s\nstderr:\n%s", what, code, err, out, stderr)
		return
	}
	if dec.More() {
		t.Errorf("%s: more than one JSON value on stdout:\n%s", what, out)
	}
	if p := findNull(v, ""); p != "" {
		t.Errorf("%s: null at %s:\n%s", what, p, out)
	}
}

// findNull returns the path of the first null in v, or "".
func findNull(v any, path string) string {
	switch x := v.(type) {
	case nil:
		return path + " (null)"
	case map[string]any:
		for k, e := range x {
			if p := findNull(e, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range x {
			if p := findNull(e, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}
