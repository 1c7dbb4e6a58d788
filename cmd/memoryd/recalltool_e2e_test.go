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

// patchCommand is the shell command a Codex model edits a file with when
// the model has no apply_patch tool of its own (as the fake model has
// not): Codex runs the envelope through its own apply_patch.
func patchCommand(file string) string {
	return "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: " + file + "\n@@\n-package db\n+package db // edited\n*** End Patch\nEOF\n"
}

// TestCodexToolRecall: with install --codex and the daemon up, the real
// Codex reading a file a fact cites with a shell command, or patching it,
// sends the model that fact with the call's result (the PreToolUse hook on
// Bash|apply_patch, trusted by install); patching a file no fact is about
// sends nothing of memoryd's.
func TestCodexToolRecall(t *testing.T) {
	codex := needtool.Path(t, "codex")
	w := newAgentWorld(t, func(r llmtest.Recorded) llmtest.Reply {
		_, cmd, ok := strings.Cut(r.User, "SHELL ")
		if !ok || len(r.ToolResults) > 0 {
			return llmtest.Text("ok")
		}
		cmd, _, _ = strings.Cut(cmd, " please")
		if file, ok := strings.CutPrefix(cmd, "PATCH "); ok {
			cmd = patchCommand(file)
		}
		return llmtest.Call("exec_command", map[string]any{"cmd": cmd})
	})
	citedWorld(t, w)
	home := w.codexHome()
	env := append(append([]string{}, w.env...), "CODEX_HOME="+home, "FAKE_API_KEY=test")
	w.install(env, "--codex")
	w.startDaemon()
	waitForCitedMap(t, w)
	run := func(cmd string) llmtest.Recorded {
		prompt := "SHELL " + cmd + " please"
		w.agent(w.appA, env, codex, "exec", "--skip-git-repo-check", "--ephemeral", "-s", "workspace-write", prompt)
		return firstWith(t, w.srv, "with the result of "+cmd, func(r llmtest.Recorded) bool {
			return len(r.ToolResults) > 0 && strings.Contains(r.User, prompt)
		})
	}
	mustCarry(t, "the request after reading the cited file", run("sed -n 1,20p src/db/migrate.go"), migrateLine, "facts about src/db/migrate.go")
	r := run("PATCH src/db/other.go")
	mustNotCarry(t, "the request after patching an uncited file", r, migrateLine, "the file this tool call reads or edits")
	if data, _ := os.ReadFile(filepath.Join(w.appA, "src", "db", "other.go")); !strings.Contains(string(data), "edited") {
		t.Errorf("Codex did not apply the patch: %q\n%s", data, r.Raw)
	}
	mustCarry(t, "the request after patching the cited file", run("PATCH src/db/migrate.go"), migrateLine, "facts about src/db/migrate.go")
}
