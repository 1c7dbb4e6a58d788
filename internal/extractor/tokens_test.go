package extractor

import (
	"context"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm"
)

// TestCommitMessageEndsWithTokens: the extraction commit's message ends
// with its trailers: an extraction, by a model, and the tokens of the
// pass's model call.
func TestCommitMessageEndsWithTokens(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/home/ana/proj")
	e.db.turn("ses_1", "Please remember that I always want tabs for indentation.", "Noted, tabs from now on.")
	answer := js(obj{"memories": []obj{mem("create", "feedback", "prefers-tabs", "Prefers tabs over spaces", tabsBody)}})
	e.x.deps.LLM = &llm.Fake{CompleteFunc: func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{Text: answer, InputTokens: 2000, OutputTokens: 34}, nil
	}}
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens != 2034 || res.Commit == "" {
		t.Fatalf("result %+v", res)
	}
	body := git(t, e.notes, "log", "-1", "--format=%B")
	if !strings.HasPrefix(body, "memory: extract from opencode session ses_1\n\ncreated feedback-prefers-tabs.md\n") ||
		!strings.HasSuffix(body, "\n\nMemoryd-Kind: extraction\nMemoryd-Writer: model\nTokens: 2034") {
		t.Errorf("message:\n%s", body)
	}
	if got := git(t, e.notes, "log", "-1", "--format=%(trailers:key=Tokens,valueonly)"); got != "2034" {
		t.Errorf("Tokens trailer %q", got)
	}
}
