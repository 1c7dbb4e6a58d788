package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/recall"
)

// The team fact Ann committed in app-a's .memory/, as an agent's session
// start lists it (teamLine) and as recall names it.
const (
	teamLine     = "[Tests need make](.memory/project-tests-need-make.md) — Run the tests with make test-all, never plain go test (team, added by Ann in "
	teamFactPath = ".memory/project-tests-need-make.md"
	teamByline   = "team, added by Ann in "
	teamPrompt   = "TEAM-TURN: how do I run the tests with make?"
)

// annCommitsTeamFact commits a team fact into app-a's .memory/ as Ann, a
// teammate whose commit the person pulled.
func annCommitsTeamFact(w *agentWorld) {
	w.t.Helper()
	dir := filepath.Join(w.appA, ".memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	w.write("project-tests-need-make.md", memoryFile("project", "tests-need-make", "Run the tests with make test-all, never plain go test",
		"The integration tests need the database that make test-all starts."), dir)
	w.git(w.appA, "add", "-A")
	w.git(w.appA, "-c", "user.name=Ann", "commit", "-q", "-m", "team memory")
}

// checkTeamAgent runs an agent (run) in app-a twice: its session start
// carries the team's fact with Ann as author; then, with an index budget
// that leaves the fact out of the session's index, the prompt's recall
// brings it, still marked as the team's. The person's memory is not
// changed.
func checkTeamAgent(t *testing.T, w *agentWorld, run func(prompt string)) {
	t.Helper()
	before := memoryState(w.world)
	run(teamPrompt)
	first := firstWith(t, w.srv, "starting the session", func(r llmtest.Recorded) bool { return strings.Contains(r.User, "TEAM-TURN") })
	mustCarry(t, "the session's first request", first, "# Team memory — app-a", teamLine)

	// memory_dir too: OpenCode runs memoryd without the world's environment.
	w.writeConfig("memory_dir: " + w.mem + "\nindex:\n  max_lines: 5\n")
	if ctx, _, _ := w.runIn(w.appA, "", nil, "context"); strings.Contains(ctx, "("+teamFactPath+")") {
		t.Fatalf("the index should leave the team fact out at 5 lines:\n%s", ctx)
	}
	n := len(w.srv.Prompts())
	run("RECALL-TURN: how do I run the tests with make?")
	var got []string
	for _, p := range w.srv.Prompts()[n:] {
		if strings.Contains(p.User, "RECALL-TURN") {
			if p.Carries(recall.Preface) && p.Carries(teamLine) && p.Carries("database that make test-all starts") {
				got = nil
				break
			}
			got = append(got, p.System+"\n"+p.User)
		}
	}
	if got != nil {
		t.Fatalf("no request of the prompt carries the recalled team fact:\n%s", strings.Join(got, "\n----\n"))
	}
	if after := memoryState(w.world); after != before {
		t.Fatalf("the person's memory changed:\n%s\n---\n%s", before, after)
	}
}

// TestClaudeCodeGetsTeamMemory runs the real `claude -p` in a repository
// whose .memory/ a teammate (Ann) committed: the SessionStart hook's
// `memoryd context` brings the team's fact to the model, marked as the
// team's with Ann as its author, the UserPromptSubmit hook recalls it, and
// the person's own memory is not changed.
func TestClaudeCodeGetsTeamMemory(t *testing.T) {
	claude := needtool.Path(t, "claude")
	w := newAgentWorld(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Text("ok") })
	annCommitsTeamFact(w)
	w.install(nil, "--claude")
	checkTeamAgent(t, w, func(prompt string) { w.agent(w.appA, w.claudeEnv(), claude, "-p", prompt) })
}

// TestClaudeCodeProposesTeamFact: the real Claude Code's model calls
// memory_save with scope "team" (allowed by the person): the fact becomes
// a proposal in the person's review inbox, marked for app-a's team, and
// nothing is written into app-a's .memory/ nor committed in app-a.
func TestClaudeCodeProposesTeamFact(t *testing.T) {
	claude := needtool.Path(t, "claude")
	w := newAgentWorld(t, func(r llmtest.Recorded) llmtest.Reply {
		if len(r.ToolResults) > 0 || !strings.Contains(r.User, "TEAM-SAVE") {
			return llmtest.Text("ok")
		}
		return llmtest.Call("mcp__memoryd__memory_save", testsRule)
	})
	w.write("README", "app-a\n", w.appA)
	w.git(w.appA, "add", "-A")
	w.git(w.appA, "commit", "-q", "-m", "start")
	head := w.git(w.appA, "rev-parse", "HEAD")
	w.install(nil, "--claude")

	w.agent(w.appA, w.claudeEnv(), claude, "-p", "TEAM-SAVE: the tests need make test-all, tell the team", "--allowedTools", "mcp__memoryd__memory_save")
	saved := firstWith(t, w.srv, "with the tool's result", func(r llmtest.Recorded) bool { return len(r.ToolResults) > 0 })
	if !strings.Contains(saved.ToolResults[0], "proposed _inbox/project-tests-need-make.md") {
		t.Fatalf("memory_save scope team: %q", saved.ToolResults)
	}
	data, err := os.ReadFile(filepath.Join(w.mem, "_inbox", "project-tests-need-make.md"))
	if err != nil || !strings.Contains(string(data), "  team: ") || !strings.Contains(string(data), "app-a") {
		t.Fatalf("the proposal is not in the inbox marked for app-a's team: %v\n%s", err, data)
	}
	if _, err := os.Stat(filepath.Join(w.appA, ".memory")); err == nil {
		t.Fatal("an agent's proposal wrote into the project's .memory/")
	}
	if w.git(w.appA, "rev-parse", "HEAD") != head || w.git(w.appA, "status", "--porcelain") != "" {
		t.Fatalf("memoryd changed app-a's git: %s", w.git(w.appA, "status", "--porcelain"))
	}
	list, _, _ := w.runIn(w.appA, "", nil, "review")
	if !strings.Contains(list, "[team app-a: ") {
		t.Fatalf("review does not list the team proposal:\n%s", list)
	}
}
