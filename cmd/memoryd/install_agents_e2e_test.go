package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// TestInstallAgentsCommand wires all three agents into a home that already
// has each one's settings: a second install changes nothing and uninstall
// gives back every one of the user's files byte for byte. Wired again,
// each real agent lists memoryd's MCP server (Claude Code and OpenCode
// reach it), doctor finds the wiring sound, and uninstall leaves no trace.
func TestInstallAgentsCommand(t *testing.T) {
	claude, codex, opencode := needtool.Path(t, "claude"), needtool.Path(t, "codex"), needtool.Path(t, "opencode")
	w := newAgentWorld(t, nil)
	llmtest.WriteOpenCodeConfig(t, w.home, w.srv)
	codexHome := w.codexHome()
	settings := filepath.Join(w.home, ".claude", "settings.json")
	servers := filepath.Join(w.home, ".claude.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	w.write("settings.json", "{\n  \"permissions\": {\n    \"allow\": [\"Bash(make:*)\"]\n  },\n  \"env\": {\"FOO\": \"1\"}\n}\n", filepath.Dir(settings))
	w.write(".claude.json", "{\n  \"numStartups\": 3,\n  \"theme\": \"dark\"\n}", w.home)
	files := []string{settings, servers, filepath.Join(codexHome, "AGENTS.md"), filepath.Join(codexHome, "config.toml"),
		filepath.Join(llmtest.OpenCodeConfigDir(w.home), "opencode.json"), filepath.Join(llmtest.OpenCodeConfigDir(w.home), "plugin", "memoryd.js")}
	read := func() map[string]string {
		m := map[string]string{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				m[f] = "<absent>"
				continue
			}
			m[f] = string(data)
		}
		return m
	}
	before := read()
	extra := []string{"CODEX_HOME=" + codexHome}

	w.install(extra, "--opencode", "--claude", "--codex")
	if out, code := w.runCmd(extra, "install", "--memory-dir", w.mem, "--no-service", "--opencode", "--claude", "--codex"); code != 0 || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second install: exit %d\n%s", code, out)
	}
	if out, code := w.runCmd(extra, "uninstall", "--memory-dir", w.mem); code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	after := read()
	for _, f := range files {
		if after[f] != before[f] {
			t.Errorf("%s after uninstall:\n%q\nbefore install:\n%q", f, after[f], before[f])
		}
	}

	// Again, now with the agents looking. Claude Code rewrites
	// ~/.claude.json whenever it runs, so after that only the absence of
	// memoryd's part can be checked there.
	w.install(extra, "--opencode", "--claude", "--codex")
	env := append(append([]string{}, w.env...), extra...)
	if out := w.agent(w.appA, env, claude, "mcp", "list"); !strings.Contains(out, "memoryd: "+binPath+" mcp --config") || !strings.Contains(out, "Connected") {
		t.Errorf("claude mcp list:\n%s", out)
	}
	if out := w.agent(w.appA, env, codex, "mcp", "list"); !strings.Contains(out, "memoryd") || !strings.Contains(out, binPath) {
		t.Errorf("codex mcp list:\n%s", out)
	}
	if out := w.agent(w.appA, llmtest.OpenCodeEnv(w.home), opencode, "mcp", "list"); !strings.Contains(out, "memoryd") || !strings.Contains(out, "connected") {
		t.Errorf("opencode mcp list:\n%s", out)
	}
	out, _ := w.runCmd(extra, "doctor")
	for _, want := range []string{"ok       opencode mcp", "ok       opencode plugin", "ok       claude code", "ok       codex"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if out, code := w.runCmd(extra, "uninstall", "--memory-dir", w.mem); code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	after = read()
	for _, f := range files {
		if f == servers {
			if strings.Contains(after[f], "memoryd") {
				t.Errorf("memoryd left in %s:\n%s", f, after[f])
			}
		} else if after[f] != before[f] {
			t.Errorf("%s after the second uninstall:\n%q\nbefore install:\n%q", f, after[f], before[f])
		}
	}
}
