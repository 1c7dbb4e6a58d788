package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
)

// TestReviewInbox: with extract.review, extracted facts wait in _inbox/
// (committed, in no index, counted by MEMORY.md's banner) until a person
// accepts or rejects them, each in a commit of its own.
func TestReviewInbox(t *testing.T) {
	w, _ := llmWorld(t, func(user string) string {
		return answerMemories(
			memJSON("create", "feedback", "go-tabs", "Tabs in Go files", "Indent Go files with tabs, as gofmt does."),
			memJSON("create", "reference", "ci-dashboard", "The CI dashboard", "CI results are on the team's CI dashboard page."),
			memJSON("create", "user", "city", "Lives in Lisbon", "The user lives in Lisbon."))("")
	})
	w.env = append(w.env, "MEMORY_EXTRACT_REVIEW=feedback,reference")
	claudeSessions(t, w, 1)
	if out, code := w.runCmd(nil, "extract"); code != 0 || !strings.Contains(out, "proposed _inbox/feedback-go-tabs.md") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	if w.show("memory/_inbox/feedback-go-tabs.md") == "" || w.show("memory/user-city.md") == "" {
		t.Fatal("the proposal or the unreviewed fact was not committed")
	}
	idx := w.index()
	if strings.Contains(idx, "go-tabs") || !strings.Contains(idx, "**2 memories wait for review** — `memoryd review`") || !strings.Contains(idx, "user-city.md") {
		t.Fatalf("MEMORY.md:\n%s", idx)
	}
	out, code := w.runCmd(nil, "review")
	if code != 0 || !strings.Contains(out, "_inbox/feedback-go-tabs.md") || !strings.Contains(out, "memoryd review accept|reject NAME") {
		t.Fatalf("review (not a terminal): %d\n%s", code, out)
	}
	if out, code := w.runCmd(nil, "review", "accept", "go-tabs"); code != 0 || !strings.Contains(out, "accepted "+filepath.Join(w.mem, "feedback-go-tabs.md")) {
		t.Fatalf("accept: %d\n%s", code, out)
	}
	if w.subjects()[0] != "memory: review: accept feedback-go-tabs.md (cli)" || w.show("memory/feedback-go-tabs.md") == "" ||
		w.show("memory/_inbox/feedback-go-tabs.md") != "" {
		t.Fatalf("after accept: %v", w.subjects()[:2])
	}
	if out, code := w.runCmd(nil, "review", "reject", "ci-dashboard", "--reason", "we have no CI dashboard"); code != 0 {
		t.Fatalf("reject: %d\n%s", code, out)
	}
	msg := w.git(w.notes, "log", "-1", "--format=%B")
	if !strings.HasPrefix(msg, "memory: review: reject reference-ci-dashboard.md (cli)") || !strings.Contains(msg, "Reason: we have no CI dashboard") {
		t.Fatalf("reject commit:\n%s", msg)
	}
	if _, err := os.Stat(filepath.Join(w.mem, "reference-ci-dashboard.md")); err == nil {
		t.Fatal("a rejected fact was written")
	}
	if idx := w.index(); strings.Contains(idx, "wait for review") || !strings.Contains(idx, "feedback-go-tabs.md") {
		t.Fatalf("MEMORY.md after the review:\n%s", idx)
	}
	if out, code := w.runCmd(nil, "review", "accept"); code != 2 {
		t.Fatalf("accept without a name: %d\n%s", code, out)
	}
}

// TestReviewOnATerminal drives `memoryd review` in a real terminal (tmux):
// one key per fact, without Enter.
func TestReviewOnATerminal(t *testing.T) {
	tmux := needtool.Path(t, "tmux")
	w, _ := llmWorld(t, func(user string) string {
		return answerMemories(
			memJSON("create", "feedback", "go-tabs", "Tabs in Go files", "Indent Go files with tabs, as gofmt does."),
			memJSON("create", "reference", "ci-dashboard", "The CI dashboard", "CI results are on the team's CI dashboard page."))("")
	})
	w.env = append(w.env, "MEMORY_EXTRACT_REVIEW=all")
	claudeSessions(t, w, 1)
	if out, code := w.runCmd(nil, "extract"); code != 0 {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	run := func(args ...string) string {
		cmd := exec.Command(tmux, append([]string{"-S", sock}, args...)...)
		cmd.Env = w.env
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	script := "env " + strings.Join(quoteAll(w.env), " ") + " " + binPath + " review; echo REVIEW-DONE; sleep 30"
	run("new-session", "-d", "-x", "200", "-y", "50", "sh", "-c", script)
	defer run("kill-server")
	waitFor(t, "the first fact on screen", func() bool { return strings.Contains(run("capture-pane", "-p"), "(1 of 2)") })
	run("send-keys", "a")
	waitFor(t, "the second fact on screen", func() bool { return strings.Contains(run("capture-pane", "-p"), "(2 of 2)") })
	run("send-keys", "r")
	waitFor(t, "the review to end", func() bool { return strings.Contains(run("capture-pane", "-p", "-S", "-100"), "REVIEW-DONE") })
	if w.show("memory/feedback-go-tabs.md") == "" || w.show("memory/reference-ci-dashboard.md") != "" ||
		w.show("memory/_inbox/reference-ci-dashboard.md") != "" {
		t.Fatalf("after a then r:\n%s", run("capture-pane", "-p", "-S", "-100"))
	}
}

func quoteAll(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		out[i] = "'" + strings.ReplaceAll(kv, "'", `'\''`) + "'"
	}
	return out
}
