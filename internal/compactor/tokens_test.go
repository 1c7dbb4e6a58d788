package compactor

import (
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestCommitMessageEndsWithTokens: the compaction commit's message ends
// with its trailers: a compaction, by a model, and the tokens the pass
// spent, as the provider reported them.
func TestCommitMessageEndsWithTokens(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply { return plan(goodOps()...).WithTokens(4000, 321) })
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens != 4321 {
		t.Fatalf("result tokens %d", res.Tokens)
	}
	body := git(t, f.root, "log", "-1", "--format=%B")
	if !strings.HasSuffix(body, "\n\nMemoryd-Kind: compaction\nMemoryd-Writer: model\nTokens: 4321") {
		t.Errorf("message does not end with the tokens:\n%s", body)
	}
	if got := git(t, f.root, "log", "-1", "--format=%(trailers:key=Tokens,valueonly)"); got != "4321" {
		t.Errorf("Tokens trailer %q", got)
	}
}
