package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// claudeEnv is the environment of the real Claude Code in w: the fake
// model, no telemetry, no updates, no retries.
func (w *agentWorld) claudeEnv() []string {
	return append(append([]string{}, w.env...),
		"ANTHROPIC_BASE_URL="+w.srv.URL,
		"ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_MAX_RETRIES=0",
	)
}

// scriptedAgent answers a prompt holding "SEARCH-TURN" with a
// memory_search call, one holding "SAVE-TURN" with a memory_save call and
// one holding "FORGET-TURN" with a memory_forget call, each until the
// tool's result comes back; everything else with "ok". tool names a tool
// as the agent offers it.
func scriptedAgent(tool func(name string) llmtest.Reply) func(llmtest.Recorded) llmtest.Reply {
	return func(r llmtest.Recorded) llmtest.Reply {
		if len(r.ToolResults) > 0 {
			return llmtest.Text("ok")
		}
		switch {
		case strings.Contains(r.User, "SEARCH-TURN"):
			reply := tool("memory_search")
			reply.Tool.Args = map[string]any{"query": "deploy make ship"}
			return reply
		case strings.Contains(r.User, "SAVE-TURN"):
			reply := tool("memory_save")
			reply.Tool.Args = map[string]any{"type": "project", "name": "release-train",
				"description": "Releases of app-a leave on Tuesdays", "body": "The release train of app-a leaves every Tuesday at noon."}
			return reply
		case strings.Contains(r.User, "FORGET-TURN"):
			reply := tool("memory_forget")
			reply.Tool.Args = map[string]any{"file": "user-coffee.md", "reason": "switched to tea"}
			return reply
		}
		return llmtest.Text("ok")
	}
}

// TestClaudeCodeUsesMemory installs --claude and runs the real `claude -p`
// in project app-a: the SessionStart hook's `memoryd context` reaches the
// model (the global index and app-a's, not app-b's), the four tools are
// offered, a memory_search runs through `memoryd mcp` without asking, and
// a memory_save runs only when allowed, then is indexed and committed.
func TestClaudeCodeUsesMemory(t *testing.T) {
	claude := needtool.Path(t, "claude")
	w := newAgentWorld(t, scriptedAgent(func(name string) llmtest.Reply {
		return llmtest.Call("mcp__memoryd__"+name, nil)
	}))
	w.install(nil, "--claude")
	w.startDaemon()

	w.agent(w.appA, w.claudeEnv(), claude, "-p", "SEARCH-TURN: how do I deploy this?")
	first := firstWith(t, w.srv, "starting the session", func(r llmtest.Recorded) bool { return strings.Contains(r.User, "SEARCH-TURN") })
	mustCarry(t, "the session's first request", first, coffeeLine, deployLine)
	mustNotCarry(t, "the session's first request", first, billingLine)
	mustOffer(t, first, "mcp__memoryd__")
	result := firstWith(t, w.srv, "with the search result", func(r llmtest.Recorded) bool { return len(r.ToolResults) > 0 })
	if !strings.Contains(result.ToolResults[0], deployHit) {
		t.Fatalf("memory_search result %q, want %q", result.ToolResults[0], deployHit)
	}

	// memory_save is not allowed by install: in -p mode Claude Code refuses it.
	n := len(w.srv.Prompts())
	w.agent(w.appA, w.claudeEnv(), claude, "-p", "SAVE-TURN: remember the release train")
	refused := w.srv.Prompts()[n:]
	if last := refused[len(refused)-1]; len(last.ToolResults) == 0 || !strings.Contains(last.ToolResults[0], "haven't granted") {
		t.Fatalf("an unallowed memory_save was not refused: %q", last.ToolResults)
	}
	if _, err := os.Stat(filepath.Join(w.mem, "project-release-train.md")); err == nil {
		t.Fatal("an unallowed memory_save wrote the fact")
	}

	n = len(w.srv.Prompts())
	w.agent(w.appA, w.claudeEnv(), claude, "-p", "SAVE-TURN: remember the release train", "--allowedTools", "mcp__memoryd__memory_save")
	saved := w.srv.Prompts()[n:]
	if last := saved[len(saved)-1]; len(last.ToolResults) == 0 || !strings.Contains(last.ToolResults[0], "created project-release-train.md") {
		t.Fatalf("memory_save result %q", last.ToolResults)
	}
	w.savedAndCommitted("project-release-train.md", "MEMORY.app-a.md", "release train")
}
