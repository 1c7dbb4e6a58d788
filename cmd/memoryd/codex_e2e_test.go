package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// codexConfig points Codex at the fake model (Responses API, no retries,
// plugins and analytics off). Top-level keys come first, so that install
// can append its table after them.
func codexConfig(url string) string {
	return `model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "` + url + `/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
unbounded_connection_retries = false

[analytics]
enabled = false
`
}

// codexHome writes the user's Codex config and returns CODEX_HOME.
func (w *agentWorld) codexHome() string {
	w.t.Helper()
	dir := filepath.Join(w.home, ".codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	w.write("config.toml", codexConfig(w.srv.URL), dir)
	w.write("AGENTS.md", "# My own rules\n\nRun the tests before committing.\n", dir)
	return dir
}

// TestCodexUsesMemory installs --codex and runs the real `codex exec` in
// project app-a: the index block in $CODEX_HOME/AGENTS.md reaches the
// model next to the user's own rules, the four tools are offered (in the
// namespace mcp__memoryd), memory_search runs through `memoryd mcp` without
// approval (readOnlyHint), memory_forget is refused unapproved
// (destructiveHint), memory_save runs and is indexed and committed.
func TestCodexUsesMemory(t *testing.T) {
	codex := needtool.Path(t, "codex")
	w := newAgentWorld(t, scriptedAgent(func(name string) llmtest.Reply {
		return llmtest.Call(name, nil).InNamespace("mcp__memoryd")
	}))
	home := w.codexHome()
	env := append(append([]string{}, w.env...), "CODEX_HOME="+home, "FAKE_API_KEY=test")
	w.install(env, "--codex")
	w.startDaemon()
	exec := func(prompt string, extra ...string) {
		args := append([]string{"exec", "--skip-git-repo-check", "--ephemeral"}, extra...)
		w.agent(w.appA, env, codex, append(args, prompt)...)
	}

	exec("SEARCH-TURN: how do I deploy this?")
	first := firstWith(t, w.srv, "starting the session", func(r llmtest.Recorded) bool { return strings.Contains(r.User, "SEARCH-TURN") })
	mustCarry(t, "the session's first request", first, coffeeLine, "Run the tests before committing.", "memory_read tool")
	mustOffer(t, first, "mcp__memoryd__")
	result := firstWith(t, w.srv, "with the search result", func(r llmtest.Recorded) bool { return len(r.ToolResults) > 0 })
	if !strings.Contains(result.ToolResults[0], deployHit) {
		t.Fatalf("memory_search result %q, want %q", result.ToolResults[0], deployHit)
	}

	// Codex's own approval policy ("auto") follows the tools' MCP hints:
	// memory_forget declares destructiveHint, so `codex exec`, which cannot
	// ask, refuses it; memory_save does not, so it runs.
	n := len(w.srv.Prompts())
	exec("FORGET-TURN: I drink tea now")
	refused := w.srv.Prompts()[n:]
	if last := refused[len(refused)-1]; len(last.ToolResults) == 0 || !strings.Contains(last.ToolResults[0], "requires approval") {
		t.Fatalf("an unapproved memory_forget was not refused: %q", last.ToolResults)
	}
	if _, err := os.Stat(filepath.Join(w.mem, "user-coffee.md")); err != nil {
		t.Fatal("an unapproved memory_forget deleted the fact")
	}

	n = len(w.srv.Prompts())
	exec("SAVE-TURN: remember the release train")
	saved := w.srv.Prompts()[n:]
	if last := saved[len(saved)-1]; len(last.ToolResults) == 0 || !strings.Contains(last.ToolResults[0], "created project-release-train.md") {
		t.Fatalf("memory_save result %q", last.ToolResults)
	}
	w.savedAndCommitted("project-release-train.md", "MEMORY.app-a.md", "release train")

	// A fact written by hand: the daemon rebuilds MEMORY.md and copies it
	// into the block, leaving the user's own rules alone.
	w.write("user-editor.md", memoryFile("user", "editor", "Edits in helix", "Helix everywhere."))
	waitFor(t, "the AGENTS.md block to follow MEMORY.md", func() bool {
		index, _ := os.ReadFile(filepath.Join(w.mem, "MEMORY.md"))
		agents, _ := os.ReadFile(filepath.Join(home, "AGENTS.md"))
		body, ok := install.CodexIndex(agents)
		return ok && strings.Contains(body, "- [Editor](user-editor.md) — Edits in helix") && body == install.CodexIndexBody(index) && strings.HasPrefix(string(agents), "# My own rules\n\nRun the tests before committing.\n\n")
	})
}
