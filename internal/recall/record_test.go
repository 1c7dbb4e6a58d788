package recall

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Two hooks recording at once both keep what they gave; the record reads
// back, and an unreadable one reads as empty and is started again.
func TestRecordGivenConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for _, f := range []string{"a.md", "b.md"} {
		wg.Go(func() {
			if err := RecordGiven(context.Background(), dir, "ses", []string{f}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s := ReadSessions(dir)
	if !s.Given("ses", "a.md") || !s.Given("ses", "b.md") || s.Given("other", "a.md") {
		t.Errorf("record %+v", s.Sessions["ses"])
	}
	os.WriteFile(filepath.Join(dir, SessionsFile), []byte("{torn"), 0o600)
	if s := ReadSessions(dir); s.Given("ses", "a.md") {
		t.Error("an unreadable record gave a fact")
	}
	err := RecordGiven(context.Background(), dir, "ses", []string{"c.md"})
	if s := ReadSessions(dir); err != nil || !s.Given("ses", "c.md") {
		t.Errorf("record after a torn file: %v", err)
	}
}

func TestOutputFormats(t *testing.T) {
	for _, c := range []struct{ format, event, want string }{
		{"auto", "", "fact\x1b text"},
		{"auto", "UserPromptSubmit", `{"hookSpecificOutput":{"additionalContext":"fact text","hookEventName":"UserPromptSubmit"}}`},
		{"json", "", `"hookEventName":"UserPromptSubmit"`},
		{"text", "PreToolUse", "fact text"},
	} {
		got, err := Output(c.format, c.event, "fact\x1b text")
		if err != nil || !strings.Contains(got, strings.ReplaceAll(c.want, "\x1b", "")) {
			t.Errorf("Output(%q, %q) = %q, %v; want %q", c.format, c.event, got, err, c.want)
		}
	}
	if _, err := Output("xml", "", "x"); err == nil {
		t.Error("Output(xml): no error")
	}
}
