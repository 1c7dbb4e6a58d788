package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// costWorld is a world whose memoryd talks to a fake LLM that answers
// every extraction with one memory and reports 1,200 + 34 tokens, and a
// Claude Code transcript to extract from.
type costWorld struct {
	*world
	srv  *llmtest.Server
	file string // the transcript
	n    int    // lines written
}

func newCostWorld(t *testing.T) *costWorld {
	w := newWorld(t)
	var answers atomic.Int32
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		name := fmt.Sprintf("fact-%d", answers.Add(1))
		return llmtest.Text(answerMemories(memJSON("create", "user", name, "Fact number "+name, "The user stated "+name+" and asked to keep it."))("")).WithTokens(1200, 34)
	})
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL="+srv.OpenAIURL(), "MEMORY_COMPACT_ENABLED=0",
		"MEMORY_EXTRACT_MODEL=openai/test-model")
	return &costWorld{world: w, srv: srv,
		file: filepath.Join(w.home, ".claude", "projects", "-home-ana-proj", "5d6e7f80-1111-4222-8333-444455556666.jsonl")}
}

// turn appends a user message and a finished reply to the transcript.
func (w *costWorld) turn(user, reply string) {
	line := func(typ string, msg map[string]any) map[string]any {
		w.n++
		return map[string]any{"type": typ, "cwd": "/home/ana/proj", "sessionId": "5d6e7f80-1111-4222-8333-444455556666", "isSidechain": false,
			"uuid": fmt.Sprintf("%s-%d", typ, w.n), "timestamp": fmt.Sprintf("2025-06-01T10:%02d:00Z", w.n), "message": msg}
	}
	appendJSONL(w.t, w.file,
		line("user", map[string]any{"role": "user", "content": user}),
		line("assistant", map[string]any{"id": fmt.Sprintf("msg_%d", w.n), "role": "assistant", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": reply}}}))
}

// TestCostStatusAfterExtract: `memoryd extract` records its tokens; status
// shows today's and the week's (text and JSON) and, over the daily limit,
// that background work is paused; a command a person runs is not paused.
func TestCostStatusAfterExtract(t *testing.T) {
	w := newCostWorld(t)
	w.turn("Remember that I prefer tabs in Go files.", "Noted: tabs in Go.")
	if out, code := w.runCmd(nil, "extract"); code != 0 || !strings.Contains(out, "created user-fact-1.md") {
		t.Fatalf("extract: exit %d\n%s", code, out)
	}
	if body := w.git(w.notes, "log", "-1", "--format=%B"); !strings.HasSuffix(body, "\nTokens: 1234") {
		t.Errorf("the extraction commit does not end with its tokens:\n%s", body)
	}

	out, _, code := w.runCmd2(nil, "status", "--json")
	r := statusJSON(t, out)
	if code != 3 || r.Tokens.Today != 1234 || r.Tokens.TodayByTask["extract"] != 1234 || r.Tokens.Last7Days != 1234 ||
		r.Tokens.DailyLimit != 1_000_000 || r.Tokens.Paused || len(r.Tokens.Days) != 7 || r.Tokens.Days[6].Tokens != 1234 {
		t.Errorf("status --json (exit %d) tokens: %+v", code, r.Tokens)
	}
	text, _ := w.runCmd(nil, "status")
	if !strings.Contains(text, "\ntokens         1,234 today (extract 1,234), 1,234 in the last 7 days, daily limit 1,000,000\n") ||
		strings.Contains(text, "paused:") {
		t.Errorf("status:\n%s", text)
	}

	over := []string{"MEMORY_LLM_DAILY_TOKENS=1000"}
	text, _ = w.runCmd(over, "status")
	if !strings.Contains(text, "\nbudget         paused: 1,234 of 1,000 tokens spent today; background extraction and compaction resume at midnight (in ") {
		t.Errorf("status over the limit:\n%s", text)
	}
	if out, _, _ := w.runCmd2(over, "status", "--json"); !statusJSON(t, out).Tokens.Paused || statusJSON(t, out).Tokens.ResumesAt.IsZero() {
		t.Errorf("status --json over the limit:\n%s", out)
	}

	// A person's command runs whatever the day's spending.
	w.turn("Don't forget: I use pnpm, never npm.", "pnpm it is.")
	if out, code := w.runCmd(over, "extract"); code != 0 || !strings.Contains(out, "created user-fact-2.md") {
		t.Fatalf("extract over the limit: exit %d\n%s", code, out)
	}
	if out, _, _ := w.runCmd2(nil, "status", "--json"); statusJSON(t, out).Tokens.Today != 2468 {
		t.Errorf("tokens after the second pass: %+v", statusJSON(t, out).Tokens)
	}
	if got := strings.Fields(w.git(w.notes, "log", "--format=%(trailers:key=Tokens,valueonly)")); strings.Join(got, " ") != "1234 1234" {
		t.Errorf("Tokens trailers in history: %q", got)
	}
}

// TestCostDaemonPausedByBudget: with the day's tokens spent by a command,
// the daemon does not extract a session that asks to remember something;
// it says so in its log and in status.
func TestCostDaemonPausedByBudget(t *testing.T) {
	w := newCostWorld(t)
	w.turn("Remember that I prefer tabs in Go files.", "Noted: tabs in Go.")
	if out, code := w.runCmd(nil, "extract"); code != 0 {
		t.Fatalf("extract: exit %d\n%s", code, out)
	}
	w.turn("Remember: the staging database is read-only on Fridays.", "Understood.")
	p := w.startDaemon("MEMORY_LLM_DAILY_TOKENS=1000", "MEMORY_EXTRACT_DEBOUNCE_MS=100")
	waitFor(t, "the daemon to pause for the budget", func() bool { return w.status().Budget.Paused })
	if n := len(w.srv.Prompts()); n != 1 {
		t.Errorf("%d requests to the model; the paused daemon made %d", n, n-1)
	}
	if st := w.status().Budget; st.DailyTokens != 1000 || st.ResumesAt.IsZero() {
		t.Errorf("status.json budget %+v", st)
	}
	text, code := w.runCmd([]string{"MEMORY_LLM_DAILY_TOKENS=1000"}, "status")
	if code != 0 || !strings.Contains(text, "budget         paused: 1,234 of 1,000 tokens spent today") {
		t.Errorf("status (exit %d):\n%s", code, text)
	}
	p.stop(t)
	if log := p.output(); strings.Count(log, "daily token budget spent: 1,234 of 1,000 tokens today") != 1 {
		t.Errorf("the pause is not logged once:\n%s", log)
	}
}
