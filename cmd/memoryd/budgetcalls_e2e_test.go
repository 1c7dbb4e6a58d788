package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestBudgetStopsCompactionBetweenBatches: a daily budget of 5,000 tokens
// and a store that makes many compaction batches. The daemon's pass asks
// for the first batch (6,050 tokens billed) and then stops, saying so,
// instead of spending the budget many times over; the ledger holds that
// one call.
func TestBudgetStopsCompactionBetweenBatches(t *testing.T) {
	w, srv, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply {
		return jsonPlan().WithTokens(6000, 50)
	})
	cfg := filepath.Join(w.home, ".config", "memoryd", "config.yaml")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, []byte("compact:\n  budget: 1000\n"), 0o644)
	for i := range 12 {
		name := fmt.Sprintf("topic%c", 'a'+i)
		w.write("reference-"+name+".md", memoryFile("reference", name, "Notes on "+name,
			strings.Repeat("The "+name+" service keeps its own runbook and dashboards. ", 12)))
	}
	p := w.startDaemon(append(env, "MEMORY_LLM_DAILY_TOKENS=5000", "MEMORY_COMPACT_CHURN=2", "MEMORY_EXTRACT_ENABLED=0")...)
	waitFor(t, "the pass to stop at the budget", func() bool { return w.status().Budget.Paused || len(srv.Prompts()) > 1 })
	if n := len(srv.Prompts()); n != 1 || !w.status().Budget.Paused {
		t.Errorf("%d compaction requests after the budget was spent by the first; want 1", n)
	}
	out, _, _ := w.runCmd2(nil, "status", "--json")
	if got := statusJSON(t, out).Tokens.Today; got != 6050 {
		t.Errorf("today's tokens %d, want 6050 (one call)", got)
	}
	p.stop(t)
	if log := p.output(); !strings.Contains(log, "compaction stopped at the daily token budget") ||
		!strings.Contains(log, "daily token budget spent: 6,050 of 5,000 tokens today") {
		t.Errorf("the daemon does not say the pass stopped at the budget:\n%s", log)
	}
}

// TestEmptyAnswerIsCounted: a provider that bills an empty answer and
// reports no usage: the call counts at least its prompt in the ledger.
func TestEmptyAnswerIsCounted(t *testing.T) {
	w := newCostWorld(t)
	srv := llmtest.NewServer(t, func(llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Body: `{"choices": [{"message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}]}`}
	})
	w.env = append(w.env, "MEMORY_LLM_BASE_URL="+srv.OpenAIURL())
	w.turn("Remember that I prefer tabs in Go files.", "Noted: tabs in Go.")
	if out, code := w.runCmd(nil, "extract"); code == 0 || !strings.Contains(out, "empty answer") {
		t.Fatalf("extract with an empty answer: exit %d\n%s", code, out)
	}
	prompts := srv.Prompts()
	if len(prompts) != 1 {
		t.Fatalf("%d requests", len(prompts))
	}
	out, _, _ := w.runCmd2(nil, "status", "--json")
	if got, least := statusJSON(t, out).Tokens.Today, len(prompts[0].User)/4; got < least || least == 0 {
		t.Errorf("the billed empty answer counts %d tokens, less than its prompt (%d)", got, least)
	}
}
