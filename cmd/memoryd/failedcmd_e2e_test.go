package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// The failed-command world: a fact of app-a that mentions `make migrate`,
// and a Makefile whose migrate target fails while the file "broken" is
// there.
const (
	failedFact = "project-migrate-twice.md"
	failedLine = "restore the dump before retrying"
)

func failedWorld(t *testing.T, w *agentWorld) {
	t.Helper()
	w.write(failedFact, projectFile("migrate twice", "app-a", "Migration 0042 is not idempotent",
		"Never run `make migrate` twice after a failure: "+failedLine+"."))
	makefile := "migrate:\n\t@if [ -f broken ]; then echo 'migration 0042 failed'; exit 2; fi; echo migrated\n"
	if err := os.WriteFile(filepath.Join(w.appA, "Makefile"), []byte(makefile), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shellAgent answers a prompt starting "RUN " by calling tool with args
// (the agent's shell tool), then "ok" once the call's result is back.
func shellAgent(tool string, args map[string]any) func(llmtest.Recorded) llmtest.Reply {
	return func(r llmtest.Recorded) llmtest.Reply {
		if !strings.Contains(r.User, "RUN ") || len(r.ToolResults) > 0 {
			return llmtest.Text("ok")
		}
		return llmtest.Call(tool, args)
	}
}

// runMigrate runs one agent session asked to run `make migrate`, failing
// or not, and returns the model's request that carries the command's
// result.
func runMigrate(t *testing.T, w *agentWorld, fail bool, run func(prompt string)) llmtest.Recorded {
	t.Helper()
	broken := filepath.Join(w.appA, "broken")
	os.Remove(broken)
	// The prompts do not name the command: prompt recall must not give
	// the fact first.
	prompt := "RUN the first database step please"
	if fail {
		prompt = "RUN the second database step please"
		if err := os.WriteFile(broken, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := len(w.srv.Prompts())
	run(prompt)
	for _, r := range w.srv.Prompts()[n:] {
		if len(r.ToolResults) > 0 && strings.Contains(r.User, prompt) {
			return r
		}
	}
	t.Fatalf("no request with the result of `make migrate` (fail %v)", fail)
	return llmtest.Recorded{}
}

// checkFailedCommand runs the agent's session twice, `make migrate`
// succeeding then failing: the model's request after the success must
// not carry the fact, the one after the failure must.
func checkFailedCommand(t *testing.T, w *agentWorld, run func(prompt string)) {
	t.Helper()
	mustNotCarry(t, "the request after `make migrate` succeeded", runMigrate(t, w, false, run), failedLine, "the command that just failed")
	r := runMigrate(t, w, true, run)
	mustCarry(t, "the request after `make migrate` failed", r, failedLine, "facts about `make migrate` — the command that just failed")
	if t.Failed() {
		log, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "memoryd", "recall.log"))
		t.Logf("recall.log:\n%s\nrequest:\n%s", log, r.Raw)
	}
}

// TestClaudeCodeFailedCommand: with install --claude, the real Claude Code
// whose `make migrate` fails sends the model the fact that mentions the
// command with the failure (the PostToolUseFailure hook on Bash); the same
// command succeeding sends nothing of memoryd's.
func TestClaudeCodeFailedCommand(t *testing.T) {
	claude := needtool.Path(t, "claude")
	w := newAgentWorld(t, shellAgent("Bash", map[string]any{"command": "make migrate", "description": "Run the migrations"}))
	failedWorld(t, w)
	w.install(nil, "--claude")
	run := func(prompt string) {
		w.agent(w.appA, w.claudeEnv(), claude, "-p", prompt, "--allowedTools", "Bash")
	}
	checkFailedCommand(t, w, run)
}

// TestOpenCodeFailedCommand: with install --opencode, the real OpenCode
// whose bash call `make migrate` exits non-zero sends the model the fact
// that mentions the command in its next request (the plugin's
// tool.execute.after); the command succeeding sends nothing of memoryd's.
func TestOpenCodeFailedCommand(t *testing.T) {
	opencode := needtool.Path(t, "opencode")
	w := newAgentWorld(t, shellAgent("bash", map[string]any{"command": "make migrate", "description": "Run the migrations"}))
	failedWorld(t, w)
	llmtest.WriteOpenCodeConfig(t, w.home, w.srv)
	w.install(nil, "--opencode")
	run := func(prompt string) {
		w.agent(w.appA, llmtest.OpenCodeEnv(w.home), opencode, "run", prompt)
	}
	checkFailedCommand(t, w, run)
}

// TestCodexFailedCommand: with install --codex, the real Codex whose
// `make migrate` fails sends the model the fact that mentions the command
// with the failure (the PostToolUse hook on Bash, the exit status read
// from the session's rollout); the same command succeeding sends nothing
// of memoryd's.
func TestCodexFailedCommand(t *testing.T) {
	codex := needtool.Path(t, "codex")
	w := newAgentWorld(t, shellAgent("exec_command", map[string]any{"cmd": "make migrate"}))
	failedWorld(t, w)
	env := append(append([]string{}, w.env...), "CODEX_HOME="+w.codexHome(), "FAKE_API_KEY=test")
	w.install(env, "--codex")
	run := func(prompt string) {
		w.agent(w.appA, env, codex, "exec", "--skip-git-repo-check", "-s", "workspace-write", prompt)
	}
	checkFailedCommand(t, w, run)
}
