package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// claudeSessions writes n finished Claude Code sessions, each asking to
// remember fact i.
func claudeSessions(t *testing.T, w *world, n int) {
	for i := range n {
		uuid := fmt.Sprintf("5d6e7f80-1111-4222-8333-%012d", i)
		file := filepath.Join(w.home, ".claude", "projects", "-home-ana-proj", uuid+".jsonl")
		line := func(typ, ts string, msg map[string]any) map[string]any {
			return map[string]any{"type": typ, "cwd": "/home/ana/proj", "sessionId": uuid, "isSidechain": false,
				"uuid": typ + ts, "timestamp": "2025-06-01T10:00:" + ts + "Z", "message": msg}
		}
		appendJSONL(t, file,
			line("user", "01", map[string]any{"role": "user", "content": fmt.Sprintf("Remember fact number %d about the build.", i)}),
			line("assistant", "02", map[string]any{"id": "msg_1", "role": "assistant", "stop_reason": "end_turn",
				"content": []any{map[string]any{"type": "text", "text": "Noted."}}}))
	}
}

// TestExtractShowsProgress: without a terminal, one plain line per session.
func TestExtractShowsProgress(t *testing.T) {
	w, _ := llmWorld(t, func(string) string { return `{"memories": []}` })
	claudeSessions(t, w, 3)
	out, code := w.runCmd(nil, "extract")
	if code != 0 {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	for i := 1; i <= 3; i++ {
		if !strings.Contains(out, fmt.Sprintf("extracting: session %d of 3 (claude/", i)) {
			t.Errorf("no progress line for session %d:\n%s", i, out)
		}
	}
	if strings.Contains(out, "\r") {
		t.Errorf("terminal control characters in plain output:\n%q", out)
	}
}

// TestExtractInterruptStopsBetweenSessions: Ctrl-C while the model answers
// the first session stops the command: nothing half-written, the other
// sessions not asked, and it says what was done.
func TestExtractInterruptStopsBetweenSessions(t *testing.T) {
	release := make(chan struct{})
	w := newWorld(t)
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		<-release
		return llmtest.Text(`{"memories": []}`)
	})
	defer close(release)
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL="+srv.OpenAIURL(), "MEMORY_COMPACT_ENABLED=0")
	claudeSessions(t, w, 3)
	p := w.start(nil, "extract")
	waitFor(t, "the first request", func() bool { return len(srv.Requests()) == 1 })
	p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatal("extract did not stop on SIGINT")
	}
	out := p.output()
	if p.cmd.ProcessState.ExitCode() != 1 || !strings.Contains(out, "interrupted after 0 of 3 session(s)") {
		t.Fatalf("exit %d:\n%s", p.cmd.ProcessState.ExitCode(), out)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after the interrupt", n)
	}
	if entries, _ := os.ReadDir(w.mem); len(entries) > 0 {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "user-") || strings.HasPrefix(e.Name(), "reference-") {
				t.Errorf("a file was written: %s", e.Name())
			}
		}
	}
}
