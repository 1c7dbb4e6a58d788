package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// TestClaudeCodeGetsTeamMemory runs the real `claude -p` in a repository
// whose .memory/ a teammate (Ann) committed: the SessionStart hook's
// `memoryd context` brings the team's fact to the model, marked as the
// team's with Ann as its author, and the person's own memory is not
// changed.
func TestClaudeCodeGetsTeamMemory(t *testing.T) {
	claude := needtool.Path(t, "claude")
	w := newAgentWorld(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Text("ok") })
	dir := filepath.Join(w.appA, ".memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w.write("project-tests-need-make.md", memoryFile("project", "tests-need-make", "Run the tests with make test-all, never plain go test",
		"The integration tests need the database that make test-all starts."), dir)
	w.git(w.appA, "add", "-A")
	w.git(w.appA, "-c", "user.name=Ann", "commit", "-q", "-m", "team memory")
	w.install(nil, "--claude")
	before := memoryState(w.world)

	w.agent(w.appA, w.claudeEnv(), claude, "-p", "TEAM-TURN: how do I run the tests?")
	first := firstWith(t, w.srv, "starting the session", func(r llmtest.Recorded) bool { return strings.Contains(r.User, "TEAM-TURN") })
	mustCarry(t, "the session's first request", first, "# Team memory — app-a",
		"[Tests need make](.memory/project-tests-need-make.md) — Run the tests with make test-all, never plain go test (team, added by Ann in ")
	if after := memoryState(w.world); after != before {
		t.Fatalf("the person's memory changed:\n%s\n---\n%s", before, after)
	}
}
