package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/status"
)

// statusOf runs `memoryd status` and `memoryd status --json`; both must
// exit with code.
func statusOf(t *testing.T, w *world, extra []string, code int) (string, status.Report) {
	t.Helper()
	text, stderr, got := w.runCmd2(extra, "status")
	if got != code {
		t.Fatalf("status: exit %d, want %d\n%s%s", got, code, text, stderr)
	}
	js, stderr, got := w.runCmd2(extra, "status", "--json")
	if got != code {
		t.Fatalf("status --json: exit %d, want %d\n%s%s", got, code, js, stderr)
	}
	return text, statusJSON(t, js)
}

// After kill -9 the daemon's status.json still says running; status must
// not, must exit 3, and must suggest a command that does start it here.
func TestStatusAfterKill9(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	text, r := statusOf(t, w, nil, 0)
	if !r.Running || r.Daemon == nil || !r.Daemon.Running || !strings.Contains(text, "daemon         running (pid ") {
		t.Fatalf("a running daemon:\n%s", text)
	}

	p.cmd.Process.Kill()
	<-p.done
	if !w.status().Running {
		t.Fatal("the test needs the status.json a killed daemon leaves (running: true)")
	}
	text, r = statusOf(t, w, nil, exitNotRunning)
	if !strings.Contains(text, "daemon         not running (pid ") || !strings.Contains(text, "killed or crashed") {
		t.Errorf("text after kill -9:\n%s", text)
	}
	if r.Running || r.Daemon == nil || r.Daemon.Running || !r.Daemon.Stale {
		t.Errorf("JSON after kill -9: running %v, daemon %+v", r.Running, r.Daemon)
	}
	mem, _ := state.RealPath(w.mem)
	if want := "memoryd run --memory-dir " + mem; r.Fix != want {
		t.Errorf("fix %q, want %q (no service is installed)", r.Fix, want)
	}
	if strings.Contains(text, "memoryd start") {
		t.Errorf("suggests 'memoryd start' with no service installed:\n%s", text)
	}

	// The suggested command works as it stands, without MEMORY_DIR.
	args := strings.Fields(r.Fix)[1:]
	p2 := w.start([]string{"MEMORY_DIR="}, args...)
	waitFor(t, "the suggested command to start a daemon", func() bool {
		_, _, code := w.runCmd2(nil, "status")
		return code == 0
	})
	p2.stop(t)
	text, r = statusOf(t, w, nil, exitNotRunning)
	if r.Daemon == nil || !r.Daemon.Stale || !strings.Contains(text, "not running (pid ") || !strings.Contains(text, " stopped ") {
		t.Errorf("after a clean stop:\n%s", text)
	}
}

// The last commit comes from git history: a commit `memoryd extract` made
// while the daemon runs is shown at once.
func TestStatusShowsCommitMadeByExtract(t *testing.T) {
	w, _ := llmWorld(t, answerMemories(memJSON("create", "project", "snake-case-json", "The API speaks snake_case JSON",
		"JSON field names in the API are snake_case.\nWhy: the user said so.")))
	codexHome := filepath.Join(w.home, "codex-home")
	w.env = append(w.env, "CODEX_HOME="+codexHome)
	w.startDaemon("MEMORY_EXTRACT_ENABLED=0")
	waitFor(t, "the daemon's start-up commit", func() bool { return w.status().Git.LastCommit != "" })

	file := filepath.Join(codexHome, "sessions", "2025", "09", "14", "rollout-2025-09-14T10-00-00-0199b0c2-aaaa-7bbb-8ccc-ddddeeeeffff.jsonl")
	item := func(ts, typ string, payload map[string]any) map[string]any {
		return map[string]any{"timestamp": "2025-09-14T10:00:" + ts + "Z", "type": typ, "payload": payload}
	}
	appendJSONL(t, file,
		item("00", "session_meta", map[string]any{"id": "0199b0c2-aaaa-7bbb-8ccc-ddddeeeeffff", "cwd": "/home/ana/api"}),
		item("01", "event_msg", map[string]any{"type": "task_started"}),
		item("02", "response_item", map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "Our API uses snake_case JSON field names."}}}),
		item("03", "response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{
			map[string]any{"type": "output_text", "text": "Understood: snake_case."}}}),
		item("04", "event_msg", map[string]any{"type": "task_complete"}),
	)
	if out, code := w.runCmd(nil, "extract"); code != 0 || !strings.Contains(out, "snake-case-json") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	head := w.head()
	subject := w.subjects()[0]
	if !strings.HasPrefix(subject, "memory: extract from codex session") {
		t.Fatalf("the extract commit is not HEAD: %q", subject)
	}
	text, r := statusOf(t, w, nil, 0)
	if r.LastCommit == nil || r.LastCommit.Hash != head || r.LastCommit.Subject != subject || r.LastCommit.At.IsZero() {
		t.Errorf("JSON last commit %+v, want %s %q", r.LastCommit, head, subject)
	}
	if want := "last commit    " + head[:12] + " "; !strings.Contains(text, want) || !strings.Contains(text, ": "+subject) {
		t.Errorf("text lacks %q … %q:\n%s", want, subject, text)
	}
}

// A fresh folder has had no compaction pass, even though its compaction
// state counts the interval from now; nothing has been committed yet.
func TestStatusFreshFolderNoPassYet(t *testing.T) {
	w := newWorld(t)
	text, r := statusOf(t, w, nil, exitNotRunning)
	for _, want := range []string{"daemon         not running (never started for this folder)", "last commit    none yet", "last pass never"} {
		if !strings.Contains(text, want) {
			t.Errorf("before any daemon, text lacks %q:\n%s", want, text)
		}
	}
	if r.LastCommit != nil || !r.Compaction.LastPassAt.IsZero() {
		t.Errorf("JSON: %+v", r)
	}

	srv := llmtest.NewServer(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Text("{}") })
	extra := []string{"MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL=" + srv.OpenAIURL(), "MEMORY_EXTRACT_ENABLED=0"}
	w.env = append(w.env, extra...)
	p := w.startDaemon()
	if w.compactState().LastCompactedAt.IsZero() {
		t.Fatal("the test needs the fresh compaction state (lastCompactedAt set at start)")
	}
	text, r = statusOf(t, w, nil, 0)
	if want := "compaction     churn 0 of 8, last pass never, next check in 10 min"; !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
	if !r.Compaction.Enabled || !r.Compaction.LastPassAt.IsZero() || r.Compaction.NextCheckAt.IsZero() {
		t.Errorf("JSON compaction %+v", r.Compaction)
	}
	if len(srv.Requests()) != 0 {
		t.Error("a fresh install called the model")
	}
	p.stop(t)
}

// With the service installed and its manager answering, the fix is
// `memoryd start`.
func TestStatusSuggestsStartWhenServiceInstalled(t *testing.T) {
	w := newWorld(t)
	extra := fakeServiceTools(t, w, false, "yes")
	installUnit(t, w)
	text, r := statusOf(t, w, extra, exitNotRunning)
	if r.Fix != "memoryd start" || !strings.Contains(text, "start it with: memoryd start") {
		t.Errorf("fix %q:\n%s", r.Fix, text)
	}
	if !strings.Contains(text, "service        systemd, installed but not running") {
		t.Errorf("service line:\n%s", text)
	}
	// The unit is there but no manager answers (a container shell, su):
	// `memoryd start` would fail, so the fix is to run it by hand.
	noBus := "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(w.home, "fakebin", "systemctl"), []byte(noBus), 0o755); err != nil {
		t.Fatal(err)
	}
	_, r = statusOf(t, w, extra, exitNotRunning)
	if !strings.HasPrefix(r.Fix, "memoryd run ") {
		t.Errorf("fix with an unreachable manager: %q", r.Fix)
	}
}
