package main

import (
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// TestCodexGetsTeamMemory runs the real `codex exec` in a repository whose
// .memory/ Ann committed: the SessionStart hook (`memoryd context
// --project-only`) brings the team's fact, marked with Ann as author, and
// the UserPromptSubmit hook recalls it when the index leaves it out.
func TestCodexGetsTeamMemory(t *testing.T) {
	codex := needtool.Path(t, "codex")
	w := newAgentWorld(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Text("ok") })
	annCommitsTeamFact(w)
	env := append(append([]string{}, w.env...), "CODEX_HOME="+w.codexHome(), "FAKE_API_KEY=test")
	w.install(env, "--codex")
	checkTeamAgent(t, w, func(prompt string) {
		w.agent(w.appA, env, codex, "exec", "--skip-git-repo-check", "--ephemeral", prompt)
	})
}

// TestOpenCodeGetsTeamMemory runs the real `opencode run` in the same
// repository: the plugin's `memoryd context --project-only` and its recall
// bring the team's fact to the system prompt.
func TestOpenCodeGetsTeamMemory(t *testing.T) {
	opencode := needtool.Path(t, "opencode")
	w := newAgentWorld(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Text("ok") })
	annCommitsTeamFact(w)
	llmtest.WriteOpenCodeConfig(t, w.home, w.srv)
	w.install(nil, "--opencode")
	env := llmtest.OpenCodeEnv(w.home)
	checkTeamAgent(t, w, func(prompt string) { w.agent(w.appA, env, opencode, "run", prompt) })
}
