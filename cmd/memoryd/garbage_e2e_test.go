package main

import (
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestGarbageAnswerNotEchoedRaw: a model answer full of terminal control
// bytes (escape sequences, a bell, NUL) is quoted in extract's output
// without them, newlines and tabs apart.
func TestGarbageAnswerNotEchoedRaw(t *testing.T) {
	w := newCostWorld(t)
	garbage := "\x1b[2J\x1b]0;pwned\x07\x00 not json at all \x1b[31mRED\x1b[0m\x08\x7f"
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text(garbage) })
	w.env = append(w.env, "MEMORY_LLM_BASE_URL="+srv.OpenAIURL())
	w.turn("Remember that I prefer tabs in Go files.", "Noted: tabs in Go.")
	stdout, stderr, _ := w.runCmd2(nil, "extract")
	out := stdout + stderr
	if !strings.Contains(out, "not json at all") {
		t.Fatalf("the answer is not quoted at all:\n%q", out)
	}
	if strings.ContainsAny(out, "\x1b\x07\x00\x08\x7f") {
		t.Errorf("control bytes reach the terminal:\n%q", out)
	}
}
