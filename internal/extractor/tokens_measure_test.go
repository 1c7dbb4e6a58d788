package extractor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm"
)

// TestTokensPerFactOnOpenCodeFixtures measures what extraction costs: the
// seven sessions a real OpenCode 1.18.33 wrote (transcript/testdata) are
// extracted one by one, the model (a fake reporting no usage, so tokens
// are characters/4, as the ledger counts them then) answering one fact per
// call; first into an empty store, then into a store of 60 facts (whose
// bodies fill the 12,000-character context). It logs tokens per call and
// per fact:
//
//	go test ./extractor/ -run TestTokensPerFactOnOpenCodeFixtures -v
func TestTokensPerFactOnOpenCodeFixtures(t *testing.T) {
	for _, stored := range []int{0, 60} {
		t.Run(fmt.Sprintf("store of %d facts", stored), func(t *testing.T) {
			e := newEnv(t)
			e.db.exec(`DELETE FROM project`)
			for _, name := range []string{"../transcript/testdata/opencode-1.18.33-rows.sql", "../transcript/testdata/opencode-1.18.33-write.sql"} {
				b, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				e.db.exec(string(b))
			}
			for i := range stored {
				e.write(fmt.Sprintf("project-stored-%02d.md", i), memoryFile("project", fmt.Sprintf("stored-%02d", i),
					fmt.Sprintf("Stored fact %d about the build", i),
					fmt.Sprintf("The build step %d runs the linters before the tests; keep it that way.\nWhy: agreed in review number %d.", i, i)))
			}
			git(t, e.notes, "add", "-A")
			if stored > 0 {
				git(t, e.notes, "commit", "-q", "-m", "stored facts")
			}
			calls, tokens, system := 0, 0, 0
			e.x.deps.LLM = &llm.Fake{CompleteFunc: func(ctx context.Context, req llm.Request) (llm.Response, error) {
				calls++
				system += len(req.System) / 4
				name := fmt.Sprintf("fixture-fact-%d", calls)
				text := js(obj{"memories": []obj{mem("create", "project", name, "A fact from fixture session "+name,
					"The fixture session established fact "+name+" for this project.\nWhy: the user said so and asked to keep it.")}})
				resp := llm.Response{Text: text}
				tokens += resp.Tokens(req)
				return resp, nil
			}}
			sessions, err := e.src.Changed(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			facts := 0
			for _, s := range sessions {
				res, err := e.x.Extract(ctx, "opencode", s.ID)
				if err != nil && !strings.Contains(err.Error(), "nothing") {
					t.Fatalf("%s: %v", s.ID, err)
				}
				facts += len(res.Changes)
			}
			if calls == 0 || facts != calls {
				t.Fatalf("%d sessions, %d calls, %d facts", len(sessions), calls, facts)
			}
			t.Logf("%d sessions, %d calls, %d facts, %d tokens: %d tokens per call (%d of them the system prompt), %d tokens per fact",
				len(sessions), calls, facts, tokens, tokens/calls, system/calls, tokens/facts)
		})
	}
}
