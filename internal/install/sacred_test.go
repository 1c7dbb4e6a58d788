package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The agents' files are the user's: these tests put files memoryd does not
// own, in the shapes an attacker's run found harmful, on disk and check
// the exact bytes before and after install, the daemon's refresh and
// uninstall.

// agentsEnv is an env wiring Claude Code and Codex (and OpenCode) without
// a service, with MEMORY.md in place.
func agentsEnv(t *testing.T) *env {
	e := newEnv(t, "linux")
	e.opts.Claude, e.opts.Codex, e.opts.NoService = true, true, true
	writeFile(t, filepath.Join(e.opts.MemoryDir, "MEMORY.md"), "# Memory\n\n## User\n- [Coffee](user-coffee.md) — Oat milk\n", 0o644)
	return e
}

func (e *env) install() (Report, error) { return Install(context.Background(), e.opts) }

func (e *env) uninstall() (Report, error) { return Uninstall(context.Background(), e.opts) }

// notes joins the notes of the report's steps for the file at path.
func notes(r Report, path string) string {
	var out []string
	for _, s := range r.Steps {
		if s.Path == path {
			out = append(out, string(s.Outcome)+": "+s.Note)
		}
	}
	return strings.Join(out, "; ")
}

// TestCodexAgentsOrphanMarker: a begin marker without its end (a
// half-deleted block) or one quoted in the user's text never makes
// install, the daemon's refresh or uninstall touch the user's text: only
// the well-formed block memoryd wrote is replaced or removed, the stray
// marker is left alone and install says so.
func TestCodexAgentsOrphanMarker(t *testing.T) {
	for name, user := range map[string]string{
		"half-deleted block": "# My rules\n\n" + codexAgentsMarkers.begin + "\nThe user's long-term memory (memoryd). Each entry\n\nMy own text, written after I cut the block.\n",
		"quoted marker":      "# My rules\n\nmemoryd's block starts with a line like\n<!-- memoryd:begin here -->\nand ends with another; mine follows.\n\nNever push on Fridays.\n",
		"orphan end":         "# My rules\n<!-- memoryd:end -->\nStill mine.\n",
	} {
		t.Run(name, func(t *testing.T) {
			e := agentsEnv(t)
			p := e.agentPaths()["AGENTS.md"]
			writeFile(t, p, user, 0o644)
			r, err := e.install()
			if err != nil {
				t.Fatal(err)
			}
			got := readFile(t, p)
			index := "# Memory\n\n## User\n- [Coffee](user-coffee.md) — Oat milk\n"
			if want := user + "\n" + codexAgentsMarkers.begin + "\n" + codexIndexBody([]byte(index)) + codexAgentsMarkers.end + "\n"; got != want {
				t.Fatalf("after install:\n%q\nwant:\n%q", got, want)
			}
			if n := notes(r, p); !strings.Contains(n, "left alone") || !strings.Contains(n, "line ") {
				t.Errorf("install does not report the stray marker: %q", n)
			}
			if stray := CodexAgentsStray([]byte(got)); len(stray) != 1 {
				t.Errorf("stray markers %v", stray)
			}

			// The daemon refreshes the block with a new index: the user's
			// text stays.
			newer := index + "- [Tea](user-tea.md) — Green\n"
			if changed, err := RefreshCodexBlock(filepath.Dir(p), []byte(newer)); !changed || err != nil {
				t.Fatalf("refresh: %v %v", changed, err)
			}
			if got, want := readFile(t, p), user+"\n"+codexAgentsMarkers.begin+"\n"+codexIndexBody([]byte(newer))+codexAgentsMarkers.end+"\n"; got != want {
				t.Fatalf("after refresh:\n%q\nwant:\n%q", got, want)
			}
			if _, err := e.uninstall(); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, p); got != user {
				t.Fatalf("after uninstall:\n%q\nwant:\n%q", got, user)
			}
		})
	}
}

// TestCodexAgentsNoBlockOnlyStray: with a stray marker and no block of
// memoryd's, the daemon's refresh and uninstall change nothing.
func TestCodexAgentsNoBlockOnlyStray(t *testing.T) {
	e := agentsEnv(t)
	p := e.agentPaths()["AGENTS.md"]
	user := "# Mine\n" + codexAgentsMarkers.begin + "\nhalf a block\n\nmy text\n"
	writeFile(t, p, user, 0o644)
	if changed, err := RefreshCodexBlock(filepath.Dir(p), []byte("# Memory\n")); changed || err != nil {
		t.Fatalf("refresh: %v %v", changed, err)
	}
	if _, err := e.uninstall(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != user {
		t.Fatalf("after uninstall:\n%q\nwant:\n%q", got, user)
	}
}

// TestCodexConfigForms: config.toml written with an inline table, quoted
// keys or dotted keys. Install either writes memoryd's block — a change
// that parses and keeps every other key — or refuses with a message that
// says what to do and writes nothing, to config.toml or to any other of
// the agents' files.
func TestCodexConfigForms(t *testing.T) {
	for _, tc := range []struct {
		name, user string
		refuse     string // what the error says; "" when install goes through
	}{
		{"inline mcp_servers", "model = \"o3\"\nmcp_servers = { other = { command = \"other\", args = [] } }\n", "inline table"},
		{"inline empty mcp_servers", "mcp_servers = {}\n", "inline table"},
		{"inline hooks", "hooks = { state = {} }\n", "inline table"},
		{"quoted memoryd", "[mcp_servers.\"memoryd\"]\ncommand = \"memoryd\"\n", "codex mcp remove memoryd"},
		{"literal-quoted memoryd", "[mcp_servers.'memoryd']\ncommand = \"memoryd\"\n", "codex mcp remove memoryd"},
		{"dotted memoryd", "mcp_servers.memoryd.command = \"memoryd\"\n", "codex mcp remove memoryd"},
		{"dotted memoryd in a table", "[mcp_servers]\nmemoryd.command = \"memoryd\"\n", "codex mcp remove memoryd"},
		{"array of tables", "[[mcp_servers]]\nname = \"x\"\n", "not a table"},
		{"a value", "hooks = 1\n", "not a table"},
		{"not TOML", "model = \n", "not valid TOML"},
		{"quoted other", "[mcp_servers.\"other one\"]\ncommand = \"other\"\n", ""},
		{"dotted other", "model = \"o3\"\nmcp_servers.other.command = \"other\"\nhooks.state.\"x:y:0:0\".trusted_hash = \"sha256:00\"\n", ""},
		{"dotted other in a table", "[mcp_servers]\nother.command = \"other\"\nother.env.FOO = \"1\"\n", ""},
		{"inline other in a table", "[mcp_servers]\nother = { command = \"other\" }\n", ""},
		{"CRLF", "model = \"o3\"\r\n\r\n[mcp_servers.other]\r\ncommand = \"other\"\r\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := agentsEnv(t)
			p := e.agentPaths()["config.toml"]
			writeFile(t, p, tc.user, 0o600)
			before := e.readAll()
			_, err := e.install()
			if tc.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refuse) || !strings.Contains(err.Error(), p) {
					t.Fatalf("install: %v, want a refusal naming %s and saying %q", err, p, tc.refuse)
				}
				if after := e.readAll(); !mapsEqual(after, before) {
					for k := range after {
						if after[k] != before[k] {
							t.Errorf("%s written although install refused:\n%q", k, after[k])
						}
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := readFile(t, p)
			if !strings.HasPrefix(got, tc.user) {
				t.Fatalf("install changed the user's part:\n%q", got)
			}
			doc, err := parseTOML([]byte(got))
			if err != nil {
				t.Fatalf("install wrote invalid TOML: %v\n%s", err, got)
			}
			old, _ := parseTOML([]byte(tc.user))
			delete(doc["mcp_servers"].(map[string]any), MCPServerName)
			for k := range tomlStates(doc) {
				if strings.HasPrefix(k, filepath.Dir(p)) {
					delete(tomlStates(doc), k)
				}
			}
			if !sameTOML(old, doc) {
				t.Fatalf("other keys changed:\n%v\n%v", old, doc)
			}
			if _, err := e.uninstall(); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, p); got != tc.user {
				t.Fatalf("after uninstall:\n%q\nwant:\n%q", got, tc.user)
			}
		})
	}
}

// TestClaudeSettingsExactBytes: settings.json that is exactly {}, a
// symlink or CRLF gets back its exact bytes from uninstall: {} stays, a
// link stays a link to the same target (the target written through), CRLF
// stays CRLF — the lines install adds too.
func TestClaudeSettingsExactBytes(t *testing.T) {
	crlf := "{\r\n  \"model\": \"sonnet\",\r\n  \"permissions\": {\r\n    \"allow\": [\"Bash(make:*)\"]\r\n  }\r\n}\r\n"
	for _, tc := range []struct {
		name, user string
		link       bool
	}{
		{"empty object", "{}", false},
		{"empty object and newline", "{}\n", false},
		{"empty object linked", "{}\n", true},
		{"linked", "{\n  \"model\": \"opus\"\n}\n", true},
		{"CRLF", crlf, false},
		{"empty containers of the user's", "{\n  \"hooks\": {},\n  \"permissions\": {\"allow\": []}\n}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := agentsEnv(t)
			p := e.agentPaths()["settings.json"]
			target := p
			if tc.link {
				target = filepath.Join(e.root, "dotfiles", "claude-settings.json")
				mustMkdir(t, filepath.Dir(p))
				if err := os.Symlink("../../dotfiles/claude-settings.json", p); err != nil {
					t.Fatal(err)
				}
			}
			writeFile(t, target, tc.user, 0o644)
			if _, err := e.install(); err != nil {
				t.Fatal(err)
			}
			got := readFile(t, p)
			if !strings.Contains(got, "UserPromptSubmit") {
				t.Fatalf("not wired:\n%s", got)
			}
			if strings.Contains(tc.user, "\r\n") && strings.Count(got, "\n") != strings.Count(got, "\r\n") {
				t.Errorf("install mixed line endings into a CRLF file:\n%q", got)
			}
			if _, err := e.install(); err != nil {
				t.Fatal(err)
			}
			if _, err := e.uninstall(); err != nil {
				t.Fatal(err)
			}
			if tc.link {
				if dest, err := os.Readlink(p); err != nil || dest != "../../dotfiles/claude-settings.json" {
					t.Fatalf("link after uninstall: %q %v", dest, err)
				}
			}
			data, err := os.ReadFile(target)
			if err != nil {
				t.Fatalf("after uninstall: %v", err)
			}
			if string(data) != tc.user {
				t.Fatalf("after uninstall:\n%q\nwant:\n%q", data, tc.user)
			}
		})
	}
}

// TestFilesInstallCreatedAreRemoved: a file install created, and only
// such a file, is deleted by uninstall once memoryd's part is gone.
func TestFilesInstallCreatedAreRemoved(t *testing.T) {
	e := agentsEnv(t)
	if _, err := e.install(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.uninstall(); err != nil {
		t.Fatal(err)
	}
	for name, data := range e.readAll() {
		if data != "<absent>" {
			t.Errorf("%s left behind:\n%q", name, data)
		}
	}
}

// TestReadOnlyClaudeJSON: a read-only ~/.claude.json is reported and left
// as it is — same bytes, same mode, the same file — by install and by
// uninstall.
func TestReadOnlyClaudeJSON(t *testing.T) {
	e := agentsEnv(t)
	p := e.agentPaths()[".claude.json"]
	user := "{\n  \"numStartups\": 3\n}\n"
	writeFile(t, p, user, 0o444)
	fi0, _ := os.Stat(p)
	before := e.readAll()
	_, err := e.install()
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), p) {
		t.Fatalf("install: %v", err)
	}
	if after := e.readAll(); !mapsEqual(after, before) {
		t.Errorf("install wrote files although it refused")
	}
	check := func(when string) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil || readFile(t, p) != user || fi.Mode().Perm() != 0o444 || !os.SameFile(fi, fi0) {
			t.Fatalf("%s: .claude.json changed: %v %v", when, fi.Mode(), err)
		}
	}
	check("install")

	// Wired while writable, then made read-only: uninstall reports it and
	// goes on with the other files.
	os.Chmod(p, 0o644)
	if _, err := e.install(); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o444)
	wired := readFile(t, p)
	fi0, _ = os.Stat(p)
	_, err = e.uninstall()
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), p) {
		t.Fatalf("uninstall: %v", err)
	}
	user = wired
	check("uninstall")
	if got, _ := os.ReadFile(e.agentPaths()["config.toml"]); strings.Contains(string(got), "memoryd") {
		t.Errorf("uninstall stopped at the read-only file")
	}
}

// TestOpenCodeUsersOwnPlugin: a plugin/memoryd.js that memoryd did not
// write is never overwritten: install refuses, naming the file, and
// writes nothing; uninstall leaves it.
func TestOpenCodeUsersOwnPlugin(t *testing.T) {
	for name, user := range map[string]string{
		"plain":               "export const Mine = async () => ({})\n",
		"memoryd-like header": "// memoryd: my own wrapper around memoryd\nexport const Mine = async () => ({})\n",
	} {
		t.Run(name, func(t *testing.T) {
			e := agentsEnv(t)
			p := e.agentPaths()["plugin"]
			writeFile(t, p, user, 0o644)
			before := e.readAll()
			_, err := e.install()
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not memoryd's") {
				t.Fatalf("install: %v", err)
			}
			if after := e.readAll(); !mapsEqual(after, before) {
				t.Errorf("install wrote files although it refused")
			}
			if _, err := e.uninstall(); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, p); got != user {
				t.Fatalf("after uninstall:\n%q", got)
			}
		})
	}
	// memoryd's own plugin, from an older memoryd, is replaced.
	e := agentsEnv(t)
	p := e.agentPaths()["plugin"]
	old := "// memoryd: adds the memory index of the session's project to OpenCode's\n// system prompt (MEMORY.md itself comes through \"instructions\").\n// Written by `memoryd install --opencode`; `memoryd uninstall` removes it.\nconst MEMORYD = \"/old/memoryd\";\n"
	writeFile(t, p, old, 0o644)
	if _, err := e.install(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != string(RenderOpenCodePlugin(e.opts.Binary, e.opts.ConfigPath)) {
		t.Fatalf("older plugin not replaced:\n%s", got)
	}
}

// TestApostropheHome: a home folder with an apostrophe. Install writes one
// hook of each kind, a second install adds none, the hooks are found as
// memoryd's and uninstall removes them.
func TestApostropheHome(t *testing.T) {
	e := agentsEnv(t)
	home := filepath.Join(e.root, "o'brien")
	mustMkdir(t, home)
	bin := filepath.Join(home, "bin", "memoryd")
	writeFile(t, bin, "#!/bin/sh\nexit 0\n", 0o755)
	e.opts.Home, e.opts.Binary = home, bin
	e.opts.ConfigPath = filepath.Join(home, ".config", "memoryd", "config.yaml")
	e.opts.XDGConfigHome = filepath.Join(home, ".config")
	settings, servers := ClaudeFiles(home, "")
	writeFile(t, settings, "{\n  \"model\": \"opus\"\n}\n", 0o644)
	for range 2 {
		if _, err := e.install(); err != nil {
			t.Fatal(err)
		}
	}
	got := readFile(t, settings)
	if n := strings.Count(got, "context --config"); n != 1 {
		t.Errorf("%d SessionStart hooks:\n%s", n, got)
	}
	if n := strings.Count(got, "recall --config"); n != 1 {
		t.Errorf("%d UserPromptSubmit hooks:\n%s", n, got)
	}
	w, err := ReadClaude(settings, servers)
	if err != nil || len(w.Hook) != 4 || w.Hook[0] != bin || w.Hook[3] != e.opts.ConfigPath || w.PromptCommand == "" {
		t.Fatalf("hook not recognised: %+v %v", w, err)
	}
	codexHome := CodexHome(home, "")
	hooksPath := filepath.Join(codexHome, "hooks.json")
	data, _ := os.ReadFile(hooksPath)
	hooks, err := CodexHooks(hooksPath, data)
	if err != nil || len(hooks) != len(codexHooks) {
		t.Fatalf("codex hooks %v %v\n%s", hooks, err, data)
	}
	config, _ := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	for _, h := range hooks {
		if trusted, ok := CodexHookTrusted(config, h); !trusted || !ok {
			t.Errorf("%s hook not trusted:\n%s", h.Event, config)
		}
	}
	if _, err := e.uninstall(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, settings); got != "{\n  \"model\": \"opus\"\n}\n" {
		t.Fatalf("after uninstall:\n%q", got)
	}
	for _, f := range []string{hooksPath, filepath.Join(codexHome, "config.toml"), servers} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s left behind:\n%s", f, readFile(t, f))
		}
	}
}
