package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestTeamExtractionProposesNeverRewrites: extraction from a Claude Code
// session in a repository with team memory offers the model the team
// scope; a fact it marks for the team waits in the person's inbox as a
// team proposal (memoryd review says where it would go), not in their
// memory nor in .memory/. Neither extraction nor compaction changes a team
// fact, whatever the model answers about it.
func TestTeamExtractionProposesNeverRewrites(t *testing.T) {
	migrate := memJSON("create", "project", "migrate-with-make", "Run migrations with make migrate, never by hand", "make migrate records each migration so it never runs twice.")
	migrate["scope"] = "team"
	rewrite := memJSON("update", "project", "tests-need-make", "Tests need nothing", "Plain go test is fine.")
	w := newWorld(t)
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		if r.Task == "compact" {
			return jsonPlan(map[string]any{"op": "delete", "file": ".memory/project-tests-need-make.md", "reason": "x"},
				map[string]any{"op": "rewrite", "file": "../src/shop/.memory/project-tests-need-make.md", "description": "gone", "body": "gone", "reason": "x"})
		}
		return llmtest.Text(answerMemories(migrate, rewrite)(""))
	})
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL="+srv.OpenAIURL(), "MEMORY_COMPACT_MODEL=openai/test-model")
	shop := filepath.Join(w.home, "src", "shop")
	teamDir := filepath.Join(shop, ".memory")
	if err := os.MkdirAll(teamDir, 0o755); err != nil {
		t.Fatal(err)
	}
	w.git(shop, "init", "-q")
	rule := memoryFile("project", "tests-need-make", "Run the tests with make test-all, never plain go test", "The integration tests need the database.")
	w.write("project-tests-need-make.md", rule, teamDir)
	w.git(shop, "add", "-A")
	w.git(shop, "-c", "user.name=Ann", "commit", "-q", "-m", "team memory")
	w.write("user-coffee.md", memoryFile("user", "coffee", "Drinks oat-milk flat whites", "Oat milk, never sugar."))
	w.write("user-tea.md", memoryFile("user", "tea", "Drinks green tea after lunch", "Sencha."))

	const uuid = "5d6e7f80-1111-4222-8333-444455556677"
	line := func(typ, ts string, msg map[string]any) map[string]any {
		return map[string]any{"type": typ, "cwd": shop, "sessionId": uuid, "isSidechain": false,
			"uuid": typ + ts, "timestamp": "2025-06-01T10:00:" + ts + "Z", "message": msg}
	}
	appendJSONL(t, filepath.Join(w.home, ".claude", "projects", "-shop", uuid+".jsonl"),
		line("user", "01", map[string]any{"role": "user", "content": "Migrations here must go through make migrate, never by hand."}),
		line("assistant", "02", map[string]any{"id": "msg_1", "role": "assistant", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "Noted."}}}))
	out, code := w.runCmd(nil, "extract")
	if code != 0 {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	if p := srv.Prompts(); len(p) == 0 || !strings.Contains(p[0].User, `add "scope": "team"`) {
		t.Fatalf("the extraction prompt does not offer the team scope")
	}
	prop, err := os.ReadFile(filepath.Join(w.mem, "_inbox", "project-migrate-with-make.md"))
	if err != nil || !strings.Contains(string(prop), "  team: ") {
		t.Fatalf("no team proposal in the inbox: %v\n%s\n%s", err, prop, out)
	}
	if list, _, _ := w.runIn(shop, "", nil, "review"); !strings.Contains(list, "[team shop: "+teamDir+"]") {
		t.Fatalf("review does not say where the extracted proposal goes:\n%s", list)
	}
	if _, err := os.Stat(filepath.Join(w.mem, "project-migrate-with-make.md")); err == nil {
		t.Fatal("a fact for the team was written into the person's memory")
	}

	out, errOut, code := w.runIn(shop, "", nil, "compact", "--force")
	asked := false
	for _, r := range srv.Prompts() {
		asked = asked || r.Task == "compact"
	}
	if !asked {
		t.Fatalf("compaction asked the model nothing: %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(filepath.Join(teamDir, "project-tests-need-make.md")); string(data) != rule {
		t.Fatalf("extraction or compaction changed a team fact:\n%s", data)
	}
	if st := w.git(shop, "status", "--porcelain"); st != "" {
		t.Fatalf("extraction or compaction touched the project: %q", st)
	}
}
