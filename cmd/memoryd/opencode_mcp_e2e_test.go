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

// openCodeTool is how OpenCode 1.18 names an MCP server's tool.
func openCodeTool(name string) string { return "memoryd_" + name }

// TestOpenCodeUsesMemory installs --opencode and runs the real `opencode
// run` in each project: MEMORY.md (instructions) and, through the plugin,
// the project's own index reach the system prompt — app-a's in app-a, not
// app-b's, and the global index once; the four tools are offered; a
// memory_search and a memory_save run through `memoryd mcp`, and the saved
// fact is indexed by the daemon and committed.
func TestOpenCodeUsesMemory(t *testing.T) {
	opencode := needtool.Path(t, "opencode")
	w := newAgentWorld(t, scriptedAgent(func(name string) llmtest.Reply { return llmtest.Call(openCodeTool(name), nil) }))
	llmtest.WriteOpenCodeConfig(t, w.home, w.srv)
	w.install(nil, "--opencode")
	w.startDaemon()
	env := llmtest.OpenCodeEnv(w.home)

	w.agent(w.appA, env, opencode, "run", "SEARCH-TURN: how do I deploy this?")
	first := firstWith(t, w.srv, "starting the session in app-a", func(r llmtest.Recorded) bool { return strings.Contains(r.User, "SEARCH-TURN") })
	mustCarry(t, "app-a's system prompt", first, coffeeLine, deployLine)
	mustNotCarry(t, "app-a's system prompt", first, billingLine)
	if n := strings.Count(first.System, coffeeLine); n != 1 {
		t.Errorf("the global index is in the system prompt %d times", n)
	}
	for _, tool := range []string{"memory_search", "memory_read", "memory_save", "memory_forget"} {
		if !first.HasTool(openCodeTool(tool)) {
			t.Errorf("OpenCode does not offer %s; tools: %v", openCodeTool(tool), first.Tools)
		}
	}
	result := firstWith(t, w.srv, "with the search result", func(r llmtest.Recorded) bool { return len(r.ToolResults) > 0 })
	if !strings.Contains(result.ToolResults[0], deployHit) {
		t.Fatalf("memory_search result %q, want %q", result.ToolResults[0], deployHit)
	}

	n := len(w.srv.Prompts())
	w.agent(w.appB, env, opencode, "run", "SAVE-TURN: remember the release train")
	inB := w.srv.Prompts()[n:]
	mustCarry(t, "app-b's system prompt", inB[0], coffeeLine, billingLine)
	mustNotCarry(t, "app-b's system prompt", inB[0], deployLine)
	if last := inB[len(inB)-1]; len(last.ToolResults) == 0 || !strings.Contains(last.ToolResults[0], "created project-release-train.md") {
		t.Fatalf("memory_save result %q", last.ToolResults)
	}
	w.savedAndCommitted("project-release-train.md", "MEMORY.app-b.md", "release train")
}

// TestOpenCodePluginFailsSoft: with a memoryd the plugin cannot run, the
// session goes on as if there were no plugin — MEMORY.md still comes
// through instructions, no project index, no error.
func TestOpenCodePluginFailsSoft(t *testing.T) {
	opencode := needtool.Path(t, "opencode")
	w := newAgentWorld(t, nil)
	llmtest.WriteOpenCodeConfig(t, w.home, w.srv)
	w.install(nil, "--opencode")
	plugin := install.OpenCodePluginFile(llmtest.OpenCodeConfigDir(w.home))
	data, err := os.ReadFile(plugin)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), binPath, filepath.Join(w.home, "no-such-memoryd"), 1)
	if broken == string(data) {
		t.Fatal("the plugin does not name the binary")
	}
	os.WriteFile(plugin, []byte(broken), 0o644)

	out := w.agent(w.appA, llmtest.OpenCodeEnv(w.home), opencode, "run", "hello")
	first := w.srv.WaitPrompts(t, 1, patience)[0]
	mustCarry(t, "the system prompt", first, coffeeLine)
	mustNotCarry(t, "the system prompt", first, deployLine)
	if strings.Contains(strings.ToLower(out), "memoryd") {
		t.Errorf("opencode run said something about memoryd:\n%s", out)
	}
}
