package install

import (
	"strings"
	"testing"
)

// TestUninstallKeepsAgentEdits: the agents change their files after
// install — OpenCode writes its "$schema" line at the top of a config it
// loads, Claude Code adds settings, Codex trusts a project, the user
// writes on in AGENTS.md — and uninstall removes only memoryd's bytes:
// each file is what the user had with the agent's change, byte for byte,
// comments included.
func TestUninstallKeepsAgentEdits(t *testing.T) {
	atTop := func(line string) func(string) string {
		return func(s string) string { return strings.Replace(s, "{\n", "{\n"+line, 1) }
	}
	cases := []struct {
		file, user string
		agent      func(string) string
	}{
		{"opencode.jsonc", "{\n  // my own comment\n  \"theme\": \"dark\"\n}\n",
			atTop("  \"$schema\": \"https://opencode.ai/config.json\",\n")},
		{"settings.json", "{\n  // my own comment\n  \"theme\": \"dark\"\n}\n",
			atTop("  \"model\": \"opus\",\n")},
		{"config.toml", "# my own comment\nmodel = \"o3\"\n",
			func(s string) string { return s + "\n[projects.\"/home/me/src\"]\ntrust_level = \"trusted\"\n" }},
		{"AGENTS.md", "# My rules\n\n<!-- my own comment -->\nNever push on Fridays.\n",
			func(s string) string {
				return strings.Replace(s, "Never push on Fridays.\n", "Never push on Fridays.\nTabs, not spaces.\n", 1)
			}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			e := agentsEnv(t)
			p := e.agentPaths()[c.file]
			writeFile(t, p, c.user, 0o644)
			if _, err := e.install(); err != nil {
				t.Fatal(err)
			}
			installed := readFile(t, p)
			if installed == c.user {
				t.Fatalf("install did not wire %s", c.file)
			}
			writeFile(t, p, c.agent(installed), 0o644)
			if c.file == "opencode.jsonc" {
				// The real OpenCode, when there, makes its own change
				// (the same "$schema" line) to the file it loads.
				writeFile(t, p, installed, 0o644)
				if got := openCodeConfig(t, e.opts.Home, e.opts.XDGConfigHome); !containsAll(got, Instructions(e.opts.MemoryDir)) {
					t.Fatalf("opencode does not load memoryd's instructions: %q", got)
				}
				if got, want := readFile(t, p), c.agent(installed); got != want {
					t.Fatalf("opencode's own change is not the one this test stands in for:\n%s\nwant:\n%s", got, want)
				}
			}
			if _, err := e.uninstall(); err != nil {
				t.Fatal(err)
			}
			if got, want := readFile(t, p), c.agent(c.user); got != want {
				t.Fatalf("after uninstall:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestOpenCodeWiringJoinsTheUsersFile: OpenCode created an opencode.jsonc
// holding only its "$schema" (as `opencode models` does on a machine
// without a config), and the user's provider and model are in
// opencode.json: install wires memoryd into opencode.json, leaves
// OpenCode's file alone, the real OpenCode loads the wiring, and uninstall
// gives both files back byte for byte.
func TestOpenCodeWiringJoinsTheUsersFile(t *testing.T) {
	e := agentsEnv(t)
	paths := e.agentPaths()
	own := "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}"
	user := "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"model\": \"openai/gpt-5-mini\",\n" +
		"  \"provider\": {\"openai\": {\"options\": {\"apiKey\": \"{env:OPENAI_API_KEY}\"}}}\n}\n"
	writeFile(t, paths["opencode.jsonc"], own, 0o644)
	writeFile(t, paths["opencode.json"], user, 0o644)
	if _, err := e.install(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, paths["opencode.jsonc"]); got != own {
		t.Fatalf("install changed OpenCode's own opencode.jsonc:\n%s", got)
	}
	wired := readFile(t, paths["opencode.json"])
	for _, want := range []string{`"instructions"`, `"memoryd"`, `"model": "openai/gpt-5-mini"`} {
		if !strings.Contains(wired, want) {
			t.Fatalf("opencode.json lacks %s:\n%s", want, wired)
		}
	}
	if got := openCodeConfig(t, e.opts.Home, e.opts.XDGConfigHome); !containsAll(got, Instructions(e.opts.MemoryDir)) {
		t.Fatalf("opencode does not load memoryd's instructions: %q", got)
	}
	if _, err := e.uninstall(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, paths["opencode.json"]); got != user {
		t.Fatalf("after uninstall opencode.json:\n%s\nwant:\n%s", got, user)
	}
}
