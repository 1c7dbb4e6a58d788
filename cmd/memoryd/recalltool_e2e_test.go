package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// The cited-file world: a fact of app-a citing src/db/migrate.go, which
// the tool-call hook must bring when an agent edits that file.
const (
	migrateFact = "project-migrations.md"
	migrateLine = "never run migration 0042 twice"
)

// editAgent answers a prompt naming a file after "EDIT " as an agent
// edits it: a Read of the file, then an Edit, then "ok".
func editAgent(r llmtest.Recorded) llmtest.Reply {
	_, file, ok := strings.Cut(r.User, "EDIT ")
	if !ok || strings.Contains(string(r.Raw), `"name":"Edit","input"`) {
		return llmtest.Text("ok")
	}
	file = strings.Fields(file)[0]
	if len(r.ToolResults) == 0 {
		return llmtest.Call("Read", map[string]any{"file_path": file})
	}
	reply := llmtest.Call("Edit", map[string]any{"file_path": file, "old_string": "package db", "new_string": "package db // edited"})
	reply.Tool.ID = "call_2" // the Read was call_1
	return reply
}

// TestClaudeCodeToolRecall: with install --claude and the daemon up, the
// real Claude Code asked to edit a file a fact cites sends the model that
// fact with the edit's result (the PreToolUse hook's additionalContext);
// asked to edit a file no fact is about, it sends nothing of memoryd's.
func TestClaudeCodeToolRecall(t *testing.T) {
	claude := needtool.Path(t, "claude")
	w := newAgentWorld(t, editAgent)
	citedWorld(t, w)
	w.install(nil, "--claude")
	w.startDaemon()
	waitForCitedMap(t, w)

	edit := func(file string) llmtest.Recorded {
		n := len(w.srv.Prompts())
		w.agent(w.appA, w.claudeEnv(), claude, "-p", "EDIT "+filepath.Join(w.appA, "src", "db", file)+" please", "--allowedTools", "Read,Edit")
		reqs := w.srv.Prompts()[n:]
		if last := reqs[len(reqs)-1]; strings.Contains(string(last.Raw), `"name":"Edit","input"`) {
			return last
		}
		t.Fatalf("the session did not read and edit %s (%d requests)", file, len(reqs))
		return llmtest.Recorded{}
	}
	r := edit("migrate.go")
	mustCarry(t, "the request after editing the cited file", r, migrateLine, "facts about src/db/migrate.go")
	mustNotCarry(t, "the request after editing an uncited file", edit("other.go"), migrateLine, "the file this tool call reads or edits")
	if t.Failed() {
		log, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "memoryd", "recall.log"))
		settings, _ := os.ReadFile(filepath.Join(w.home, ".claude", "settings.json"))
		t.Logf("recall.log:\n%s\nsettings:\n%s\nrequest:\n%s", log, settings, r.Raw)
	}
}

// TestOpenCodeToolRecall: with install --opencode and the daemon up, the
// real OpenCode reading a file a fact cites sends the model that fact in
// its next request (the plugin's tool.execute.before); reading a file no
// fact is about sends nothing of memoryd's.
func TestOpenCodeToolRecall(t *testing.T) {
	opencode := needtool.Path(t, "opencode")
	w := newAgentWorld(t, func(r llmtest.Recorded) llmtest.Reply {
		_, file, ok := strings.Cut(r.User, "READ ")
		if !ok || len(r.ToolResults) > 0 {
			return llmtest.Text("ok")
		}
		return llmtest.Call("read", map[string]any{"filePath": strings.Fields(file)[0]})
	})
	citedWorld(t, w)
	llmtest.WriteOpenCodeConfig(t, w.home, w.srv)
	w.install(nil, "--opencode")
	w.startDaemon()
	waitForCitedMap(t, w)
	read := func(file string) llmtest.Recorded {
		n := len(w.srv.Prompts())
		w.agent(w.appA, llmtest.OpenCodeEnv(w.home), opencode, "run", "READ "+filepath.Join(w.appA, "src", "db", file)+" please")
		return firstWith(t, w.srv, "with the read's result", func(r llmtest.Recorded) bool {
			return len(r.ToolResults) > 0 && len(w.srv.Prompts()) > n && strings.Contains(r.User, file)
		})
	}
	mustCarry(t, "the request after reading the cited file", read("migrate.go"), migrateLine, "facts about src/db/migrate.go")
	mustNotCarry(t, "the request after reading an uncited file", read("other.go"), "the file this tool call reads or edits")
}

// citedWorld adds the fact citing src/db/migrate.go of app-a, and that file
// and an uncited one beside it.
func citedWorld(t *testing.T, w *agentWorld) {
	t.Helper()
	w.write(migrateFact, "---\nname: migrations\ndescription: How database migrations of app-a run\nmetadata:\n  type: project\n  project: app-a\n  cites:\n    - src/db/migrate.go\n---\nThe migrations run from src/db; "+migrateLine+".\n")
	for _, name := range []string{"migrate.go", "other.go"} {
		path := filepath.Join(w.appA, "src", "db", name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("package db\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// waitForCitedMap waits for the daemon to map the cited file.
func waitForCitedMap(t *testing.T, w *agentWorld) {
	t.Helper()
	waitFor(t, "the daemon's map of cited files", func() bool {
		data, _ := os.ReadFile(filepath.Join(w.stateDir(), "cited.json"))
		return strings.Contains(string(data), "src/db/migrate.go")
	})
}
