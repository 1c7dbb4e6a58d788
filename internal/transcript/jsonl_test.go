package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const claudeSession = "-home-u-proj/0b3c5e1a-7f2d-4c1e-9a8b-2f6d1e4c7a90.jsonl"

// copyFixture copies a testdata folder into a temporary folder and returns the copy.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func noneContains(t *testing.T, msgs []Message, bad ...string) {
	t.Helper()
	for _, m := range msgs {
		all := m.Text + jsonText(t, m.Tools)
		for _, b := range bad {
			if strings.Contains(all, b) {
				t.Errorf("message %q contains %q", m.Text, b)
			}
		}
	}
}

func TestClaudeTranscript(t *testing.T) {
	dir := copyFixture(t, "claude")
	s := NewClaude(dir, Options{})

	ss := changed(t, s, time.Time{})
	if len(ss) != 1 {
		t.Fatalf("sessions: %+v", ss)
	}
	got := ss[0]
	if got.ID != claudeSession || got.Source != "claude" || got.Dir != "/home/u/proj" || got.Title != "Tabs vs spaces" ||
		!got.Finished || got.LastUserText != "Also keep lines under 100 characters." || got.ParentID != "" {
		t.Errorf("session: %+v", got)
	}

	msgs := messages(t, s, claudeSession, Watermark{}, 0)
	wantLines(t, brief(msgs), []string{
		"user: Remember that I prefer tabs over spaces in Go files.",
		"assistant: Noted — I'll use tabs.\nmain.go needs formatting. [Bash: gofmt -l .]",
		"user: This session is being continued from a previous conversation that ran out of context. Summary: the user prefers tabs. (summary)",
		"user: Also keep lines under 100 characters.",
		"assistant: Will do.",
	})
	noneContains(t, msgs, "CLAUDE_TOOL_OUTPUT_7781", "CLAUDE_THINKING_SECRET", "SIDECHAIN", "Caveat", "command-name", "Set model", "one more")
	if want := time.Date(2025, 6, 1, 10, 0, 10, 0, time.UTC); !msgs[0].Time.Equal(want) || msgs[0].Mark.Time != want.UnixMilli() {
		t.Errorf("time %v, mark %+v", msgs[0].Time, msgs[0].Mark)
	}

	// Continue from a watermark; limit.
	wantLines(t, brief(messages(t, s, claudeSession, msgs[2].Mark, 0)), brief(msgs[3:]))
	wantLines(t, brief(messages(t, s, claudeSession, msgs[0].Mark, 2)), brief(msgs[1:3]))
	if more := messages(t, s, claudeSession, msgs[4].Mark, 0); len(more) != 0 {
		t.Fatalf("read the line being written: %v", brief(more))
	}

	// Claude Code finishes writing the line: a new user message, the agent is at work.
	p := filepath.Join(dir, filepath.FromSlash(claudeSession))
	appendFile(t, p, "ing\"},\"uuid\":\"u-e\",\"timestamp\":\"2025-06-01T11:01:00.000Z\"}\n")
	wantLines(t, brief(messages(t, s, claudeSession, msgs[4].Mark, 0)), []string{"user: and one more thing"})
	ss = changed(t, s, time.Time{})
	if ss[0].Finished || ss[0].LastUserText != "and one more thing" {
		t.Errorf("after append: %+v", ss[0])
	}
}

func TestClaudeSubagents(t *testing.T) {
	dir := copyFixture(t, "claude")
	ss := changed(t, NewClaude(dir, Options{IncludeSubagents: true}), time.Time{})
	wantLines(t, sessionIDs(ss), []string{"-home-u-proj/0b3c5e1a-7f2d-4c1e-9a8b-2f6d1e4c7a90.jsonl", "-home-u-proj/agent-5f2a9c1d.jsonl"})
	if ss[1].ParentID != claudeSession || !ss[1].Finished {
		t.Errorf("sub-agent session: %+v", ss[1])
	}
	s := NewClaude(dir, Options{IncludeSubagents: true})
	wantLines(t, brief(messages(t, s, ss[1].ID, Watermark{}, 0)), []string{"user: Search the repo for tab settings", "assistant: Found .editorconfig."})
	// With sub-agents included, an inline sidechain line is read too.
	if msgs := messages(t, s, claudeSession, Watermark{}, 0); !strings.Contains(strings.Join(brief(msgs), "\n"), "SIDECHAIN") {
		t.Errorf("inline sidechain line not read with IncludeSubagents")
	}
}

func TestCodexRollout(t *testing.T) {
	dir := copyFixture(t, "codex")
	s := NewCodex(dir, Options{})
	ss := changed(t, s, time.Time{})
	const newer = "2025/09/14/rollout-2025-09-14T10-00-00-0199b0c2-1111-7222-8333-444455556666.jsonl"
	const older = "2025/05/01/rollout-2025-05-01T09-00-00-5e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b.jsonl"
	if len(ss) != 2 {
		t.Fatalf("sessions: %v", sessionIDs(ss))
	}
	byID := map[string]Session{ss[0].ID: ss[0], ss[1].ID: ss[1]}
	if n := byID[newer]; n.Dir != "/home/u/api" || !n.Finished || n.LastUserText != "Rename the handler file." || n.Source != "codex" {
		t.Errorf("newer session: %+v", n)
	}
	if o := byID[older]; !o.Finished || o.LastUserText != "Remember I deploy with make deploy." {
		t.Errorf("older session: %+v", o)
	}

	msgs := messages(t, s, newer, Watermark{}, 0)
	wantLines(t, brief(msgs), []string{
		"user: Don't forget: the API uses snake_case JSON.",
		"assistant: Understood — snake_case it is. [shell: rg -n snake_case]",
		"user: Rename the handler file.",
		"assistant: Renamed. [apply_patch: ]",
		"assistant: Summary: the API uses snake_case JSON; the handler file was renamed. (summary)",
	})
	noneContains(t, msgs, "environment_context", "Always run the tests", "CODEX_REASONING", "CODEX_TOOL_OUTPUT", "CODEX_PATCH")
	wantLines(t, brief(messages(t, s, older, Watermark{}, 0)), []string{
		"user: Remember I deploy with make deploy.",
		"assistant: Got it. [shell: make -n deploy]",
	})

	// The half-written line completes; the turn has started, not finished.
	p := filepath.Join(dir, filepath.FromSlash(newer))
	appendFile(t, p, "xt\",\"text\":\"Now add a test.\"}]}}\n")
	wantLines(t, brief(messages(t, s, newer, msgs[4].Mark, 0)), []string{"user: Now add a test."})
	for _, sess := range changed(t, s, time.Time{}) {
		if sess.ID == newer && (sess.Finished || sess.LastUserText != "Now add a test.") {
			t.Errorf("after append: %+v", sess)
		}
	}
	if ws := s.WatchPaths(); len(ws) != 4 || ws[3] != filepath.Join(dir, "2025", "09", "14") {
		t.Errorf("watch paths: %v", ws)
	}
}

func TestJSONLSessionGoneAndBadIDs(t *testing.T) {
	dir := copyFixture(t, "claude")
	s := NewClaude(dir, Options{})
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(claudeSession))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Messages(context.Background(), claudeSession, Watermark{}, 0); !errors.Is(err, ErrSessionGone) {
		t.Errorf("deleted file: %v", err)
	}
	for _, id := range []string{"../claude/x.jsonl", "/etc/passwd", "-home-u-proj/../../x.jsonl", "-home-u-proj/notes.txt", "x.jsonl"} {
		if _, err := s.Messages(context.Background(), id, Watermark{}, 0); err == nil || errors.Is(err, ErrSessionGone) {
			t.Errorf("id %q: err = %v", id, err)
		}
	}
}

func TestJSONLChangedSince(t *testing.T) {
	dir := copyFixture(t, "claude")
	s := NewClaude(dir, Options{})
	p := filepath.Join(dir, filepath.FromSlash(claudeSession))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if ss := changed(t, s, old.Add(time.Second)); len(ss) != 0 {
		t.Errorf("unchanged file listed: %v", sessionIDs(ss))
	}
	if ss := changed(t, s, old); len(ss) != 1 || !ss[0].Updated.Equal(old) {
		t.Errorf("since is inclusive: %+v", ss)
	}
	if ss := changed(t, NewClaude(dir, Options{SkipDirs: []string{"/home/u"}}), time.Time{}); len(ss) != 0 {
		t.Errorf("SkipDirs: %v", sessionIDs(ss))
	}
}

func TestJSONLLongLineAndShrink(t *testing.T) {
	dir := t.TempDir()
	day := filepath.Join(dir, "2025", "01", "02")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	const id = "2025/01/02/rollout-x.jsonl"
	p := filepath.Join(dir, filepath.FromSlash(id))
	user := func(text string) string {
		return `{"timestamp":"2025-01-02T00:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}` + "\n"
	}
	huge := user(strings.Repeat("x", maxLine))
	if err := os.WriteFile(p, []byte(user("one")+huge+user("two")), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewCodex(dir, Options{})
	msgs := messages(t, s, id, Watermark{}, 0)
	wantLines(t, brief(msgs), []string{"user: one", "user: two"})
	if msgs[1].Mark.Offset != int64(len(user("one")+huge+user("two"))) {
		t.Errorf("mark %+v", msgs[1].Mark)
	}
	// The file is replaced by a shorter one: read it from the start.
	if err := os.WriteFile(p, []byte(user("three")), 0o644); err != nil {
		t.Fatal(err)
	}
	wantLines(t, brief(messages(t, s, id, msgs[1].Mark, 0)), []string{"user: three"})
	if ss := changed(t, s, time.Time{}); len(ss) != 1 || ss[0].LastUserText != "three" {
		t.Errorf("summary after the shrink: %+v", ss)
	}
}
