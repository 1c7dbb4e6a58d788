package extractor

import (
	"context"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/transcript"
)

// ExtractAll goes on past a failing session, counts what each pass wrote,
// and fails at the end saying how many sessions failed.
func TestExtractAllGoesOnAndCounts(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/home/ana/proj")
	e.db.turn("ses_1", "Please remember that I always want tabs for indentation.", "Noted.")
	e.db.session("ses_2", "/home/ana/proj")
	e.db.turn("ses_2", "Remember: the deploy runs with make ship.", "Noted.")
	e.llm.set(func(req llm.Request) (string, error) {
		if strings.Contains(req.Prompt, "make ship") {
			return "", context.DeadlineExceeded // the model fails for this session
		}
		return answerWith(mem("create", "feedback", "prefers-tabs", "Prefers tabs over spaces", tabsBody))(req)
	})
	targets := []transcript.Session{{Source: "opencode", ID: "ses_1"}, {Source: "opencode", ID: "ses_2"}}
	var steps, passes []string
	tot, err := e.x.ExtractAll(ctx, targets, AllOptions{
		Step: func(i int, key string, _ Totals) { steps = append(steps, key) },
		Pass: func(key string, _ Result, err error) bool { passes = append(passes, key); return err == nil },
	})
	if err == nil || err.Error() != "1 session(s) failed" {
		t.Fatalf("err = %v, want one failed session", err)
	}
	if tot.Passes != 1 || tot.Written != 1 || tot.Failed != 1 || tot.Done != 2 || len(steps) != 2 || len(passes) != 2 {
		t.Errorf("totals %+v, steps %q, passes %q", tot, steps, passes)
	}
	if e.read("feedback-prefers-tabs.md") == "" {
		t.Error("the first session's fact was not written")
	}
}
