package install

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// Users' agent files as people and the agents themselves write them:
// comments, trailing commas, tabs, other servers and hooks, no final
// newline, CRLF.
var userAgentFiles = map[string]string{
	"opencode.jsonc": `{
  // my setup
  "theme": "dark", /* kept */
  "instructions": [
    "/home/me/rules.md", // house rules
  ],
  "mcp": {
    "github": {"type": "remote", "url": "https://example.com/mcp"},
  },
}
`,
	".claude.json": `{
  "numStartups": 12,
  "mcpServers": {
    "other": {
      "type": "stdio",
      "command": "/usr/bin/other",
      "args": [],
      "env": {}
    }
  },
  "projects": {
    "/home/me/src/app": {
      "allowedTools": []
    }
  }
}`,
	"settings.json": "{\n\t\"model\": \"sonnet\",\n\t\"permissions\": {\n\t\t\"allow\": [\n\t\t\t\"Bash(go test:*)\"\n\t\t],\n\t\t\"deny\": [\"Read(./.env)\"]\n\t},\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]\n\t\t\t}\n\t\t],\n\t\t\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"check\"}]}],\n\t\t\"PostToolUseFailure\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"notify-send failed\"}]}]\n\t}\n}\n",
	"hooks.json":    "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}\n    ]\n  }\n}\n",
	"AGENTS.md":     "# My rules\r\n\r\nAlways run the tests.\r\n",
	"config.toml":   "model = \"gpt-5\"\n\n[mcp_servers.other]\ncommand = \"other\"\n\n[features]\nplugins = false",
}

// agentPaths are the files of every agent's wiring in e's world.
func (e *env) agentPaths() map[string]string {
	oc := OpenCodeDir(e.opts.Home, e.opts.XDGConfigHome)
	settings, servers := ClaudeFiles(e.opts.Home, e.opts.ClaudeConfigDir)
	codex := CodexHome(e.opts.Home, e.opts.CodexHome)
	return map[string]string{
		"opencode.jsonc": filepath.Join(oc, "opencode.jsonc"),
		"opencode.json":  filepath.Join(oc, "opencode.json"),
		"plugin":         OpenCodePluginFile(oc),
		".claude.json":   servers,
		"settings.json":  settings,
		"AGENTS.md":      filepath.Join(codex, "AGENTS.md"),
		"config.toml":    filepath.Join(codex, "config.toml"),
		"hooks.json":     filepath.Join(codex, "hooks.json"),
	}
}

// readAll returns each agent file's bytes ("<absent>" when missing).
func (e *env) readAll() map[string]string {
	out := map[string]string{}
	for k, p := range e.agentPaths() {
		data, err := os.ReadFile(p)
		if err != nil {
			out[k] = "<absent>"
			continue
		}
		out[k] = string(data)
	}
	return out
}

func parseJSONC(t *testing.T, name, data string) map[string]any {
	t.Helper()
	std, err := hujson.Standardize([]byte(data))
	if err != nil {
		t.Fatalf("%s is not JSONC: %v\n%s", name, err, data)
	}
	var v map[string]any
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// TestAgentsInstallUninstall wires every agent into a fresh home and into
// one full of the user's own settings: install writes each agent's part,
// a second install changes nothing, and uninstall gives back every file
// byte for byte (files install created are gone again).
func TestAgentsInstallUninstall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		dirs  bool // CLAUDE_CONFIG_DIR and CODEX_HOME set
	}{
		{"fresh home", nil, false},
		{"the user's own files", userAgentFiles, false},
		{"CLAUDE_CONFIG_DIR and CODEX_HOME", userAgentFiles, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "linux")
			e.opts.Claude, e.opts.Codex, e.opts.NoService = true, true, true
			if tc.dirs {
				e.opts.ClaudeConfigDir = filepath.Join(e.root, "claude-config")
				e.opts.CodexHome = filepath.Join(e.root, "codex-home")
			}
			paths := e.agentPaths()
			for name, data := range tc.files {
				writeFile(t, paths[name], data, 0o600)
			}
			writeFile(t, filepath.Join(e.opts.MemoryDir, "MEMORY.md"), "# Memory\n\n## User\n- [Coffee](user-coffee.md) — Oat milk\n", 0o644)
			before := e.readAll()

			if _, err := Install(context.Background(), e.opts); err != nil {
				t.Fatal(err)
			}
			after := e.readAll()
			e.checkWired(after, e.opts)
			if tc.files != nil {
				for _, keep := range []string{"// my setup", "/* kept */", `"github"`, `"/home/me/rules.md", // house rules`} {
					if !strings.Contains(after["opencode.jsonc"], keep) {
						t.Errorf("opencode.jsonc lost %q:\n%s", keep, after["opencode.jsonc"])
					}
				}
				if !strings.Contains(after["settings.json"], "\t\t\t\t\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]") {
					t.Errorf("settings.json's own hook changed:\n%s", after["settings.json"])
				}
			}
			if fi, err := os.Stat(paths[".claude.json"]); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf(".claude.json mode: %v %v", fi, err)
			}

			r, err := Install(context.Background(), e.opts)
			if err != nil || r.Changed() {
				t.Fatalf("second install: changed=%v err=%v\n%+v", r.Changed(), err, r.Steps)
			}
			if again := e.readAll(); !mapsEqual(again, after) {
				t.Fatal("second install changed a file")
			}

			if _, err := Uninstall(context.Background(), e.opts); err != nil {
				t.Fatal(err)
			}
			for name, was := range before {
				if got := e.readAll()[name]; got != was {
					t.Errorf("%s after uninstall:\n%q\nbefore install:\n%q", name, got, was)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkWired asserts that each agent's files hold memoryd's part.
func (e *env) checkWired(files map[string]string, o Options) {
	t := e.t
	t.Helper()
	command := []any{o.Binary, "mcp", "--config", o.ConfigPath}
	ocFile := "opencode.json"
	if files["opencode.jsonc"] != "<absent>" {
		ocFile = "opencode.jsonc"
	}
	oc := parseJSONC(t, ocFile, files[ocFile])
	if got := oc["mcp"].(map[string]any)["memoryd"]; !jsonEqual(got, map[string]any{"type": "local", "command": command}) {
		t.Errorf("opencode mcp entry %v", got)
	}
	if !strings.Contains(files["plugin"], "experimental.chat.system.transform") || !strings.Contains(files["plugin"], o.Binary) {
		t.Errorf("plugin:\n%s", files["plugin"])
	}
	cj := parseJSONC(t, ".claude.json", files[".claude.json"])
	want := map[string]any{"type": "stdio", "command": o.Binary, "args": command[1:], "env": map[string]any{}}
	if got := cj["mcpServers"].(map[string]any)["memoryd"]; !jsonEqual(got, want) {
		t.Errorf("claude mcp entry %v", got)
	}
	st := parseJSONC(t, "settings.json", files["settings.json"])
	allow := st["permissions"].(map[string]any)["allow"].([]any)
	if !slices.Contains(allow, any("mcp__memoryd__memory_search")) || !slices.Contains(allow, any("mcp__memoryd__memory_read")) ||
		slices.Contains(allow, any("mcp__memoryd__memory_save")) {
		t.Errorf("permissions.allow %v", allow)
	}
	groups := st["hooks"].(map[string]any)["SessionStart"].([]any)
	last := groups[len(groups)-1].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"].(string)
	if !isMemorydCommand(last, "context") || !strings.Contains(last, o.ConfigPath) {
		t.Errorf("SessionStart hook %q", last)
	}
	for event, matcher := range map[string]string{"PreToolUse": claudeToolMatcher, "PostToolUseFailure": claudeFailureMatcher} {
		if !lastHookRuns(st, event, matcher, "recall-tool") {
			t.Errorf("claude %s hook on %s missing:\n%s", event, matcher, files["settings.json"])
		}
	}
	if !lastHookRuns(parseJSONC(t, "hooks.json", files["hooks.json"]), "PreToolUse", codexToolMatcher, "recall-tool") {
		t.Errorf("codex PreToolUse hook missing:\n%s", files["hooks.json"])
	}
	if !strings.Contains(files["AGENTS.md"], "- [Coffee](user-coffee.md) — Oat milk") {
		t.Errorf("AGENTS.md:\n%s", files["AGENTS.md"])
	}
	if !strings.Contains(files["config.toml"], "[mcp_servers.memoryd]\ncommand = \""+o.Binary+"\"\nargs = [\"mcp\", \"--config\", \""+o.ConfigPath+"\"]\n") {
		t.Errorf("config.toml:\n%s", files["config.toml"])
	}
}

// lastHookRuns reports whether the last hook group of event in a hooks
// file (Claude Code's settings.json, Codex's hooks.json) has matcher and
// runs `memoryd SUB`.
func lastHookRuns(file map[string]any, event, matcher, sub string) bool {
	hooks, _ := file["hooks"].(map[string]any)
	groups, _ := hooks[event].([]any)
	if len(groups) == 0 {
		return false
	}
	g, _ := groups[len(groups)-1].(map[string]any)
	handlers, _ := g["hooks"].([]any)
	if g["matcher"] != matcher || len(handlers) != 1 {
		return false
	}
	command, _ := handlers[0].(map[string]any)["command"].(string)
	return isMemorydCommand(command, sub)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestAgentsLayout shows the exact bytes install adds to files of each
// layout: the file's own indentation, one line for one-line containers.
func TestAgentsLayout(t *testing.T) {
	cmd := []string{"/opt/memoryd", "mcp", "--config", "/c.yaml"}
	got, err := AddClaudeMCP([]byte("{\n  \"numStartups\": 1\n}"), cmd)
	want := "{\n  \"numStartups\": 1,\n  \"mcpServers\": {\n    \"memoryd\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/memoryd\",\n" +
		"      \"args\": [\n        \"mcp\",\n        \"--config\",\n        \"/c.yaml\"\n      ],\n      \"env\": {}\n    }\n  }\n}"
	if err != nil || string(got) != want {
		t.Errorf("claude.json:\n%s\nwant:\n%s", got, want)
	}
	got, err = AddClaudeSettings(nil, "/opt/memoryd context --config /c.yaml")
	want = "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"matcher\": \"startup|clear|compact\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n" +
		"            \"command\": \"/opt/memoryd context --config /c.yaml\",\n            \"timeout\": 10\n          }\n        ]\n      }\n    ]\n  },\n" +
		"  \"permissions\": {\n    \"allow\": [\n      \"mcp__memoryd__memory_search\",\n      \"mcp__memoryd__memory_read\"\n    ]\n  }\n}\n"
	if err != nil || string(got) != want {
		t.Errorf("settings.json:\n%s\nwant:\n%s", got, want)
	}
	got, err = AddClaudeSettings([]byte(`{"permissions": {"allow": ["Bash"]}}`), "/opt/memoryd context")
	if err != nil || !strings.Contains(string(got), `{"allow": ["Bash", "mcp__memoryd__memory_search", "mcp__memoryd__memory_read"]}`) {
		t.Errorf("one-line settings: %s %v", got, err)
	}
}

// TestAgentsMovedBinary: installing from another path replaces memoryd's
// entries instead of adding second ones.
func TestAgentsMovedBinary(t *testing.T) {
	old := []string{"/old/memoryd", "mcp", "--config", "/c.yaml"}
	nu := []string{"/new/memoryd", "mcp", "--config", "/c.yaml"}
	s, _ := AddClaudeSettings(nil, "/old/memoryd context --config /c.yaml")
	s, _ = AddClaudeSettings(s, "'/new place/memoryd' context --config /c.yaml")
	if n := strings.Count(string(s), "context --config"); n != 1 || !strings.Contains(string(s), "/new place/memoryd") {
		t.Errorf("%d hooks:\n%s", n, s)
	}
	c, _ := AddCodexMCP(nil, old)
	c, err := AddCodexMCP(c, nu)
	if err != nil || strings.Count(string(c), "[mcp_servers.memoryd]") != 1 || !strings.Contains(string(c), "/new/memoryd") {
		t.Errorf("config.toml %v:\n%s", err, c)
	}
	o, _ := AddOpenCodeMCP(nil, old)
	o, _ = AddOpenCodeMCP(o, nu)
	if strings.Count(string(o), "\"memoryd\":") != 1 || !strings.Contains(string(o), "/new/memoryd") {
		t.Errorf("opencode:\n%s", o)
	}
}

func TestCodexServerDefinedElsewhere(t *testing.T) {
	_, err := AddCodexMCP([]byte("[mcp_servers.memoryd]\ncommand = \"memoryd\"\n"), []string{"/m", "mcp"})
	if err == nil || !strings.Contains(err.Error(), "codex mcp remove memoryd") {
		t.Fatalf("err %v", err)
	}
}

func TestRefreshCodexBlock(t *testing.T) {
	dir := t.TempDir()
	index := []byte("# Memory\n\n## User\n- [A](user-a.md) — a\n")
	if changed, err := RefreshCodexBlock(dir, index); changed || err != nil {
		t.Fatalf("no AGENTS.md: %v %v", changed, err)
	}
	p := filepath.Join(dir, "AGENTS.md")
	writeFile(t, p, "# mine\n", 0o644)
	if changed, err := RefreshCodexBlock(dir, index); changed || err != nil || readFile(t, p) != "# mine\n" {
		t.Fatalf("no block: %v %v", changed, err)
	}
	writeFile(t, p, string(AddCodexIndex([]byte("# mine\n"), index))+"\nwritten after the block\n", 0o644)
	if changed, err := RefreshCodexBlock(dir, index); changed || err != nil {
		t.Fatalf("same index: %v %v", changed, err)
	}
	hostile := []byte("# Memory\n- [B](user-b.md) — <!-- memoryd:end -->\n")
	if changed, err := RefreshCodexBlock(dir, hostile); !changed || err != nil {
		t.Fatalf("new index: %v %v", changed, err)
	}
	got := readFile(t, p)
	if !strings.Contains(got, "user-b.md") || strings.Contains(got, "user-a.md") ||
		!strings.HasPrefix(got, "# mine\n\n") || !strings.HasSuffix(got, "<!-- memoryd:end -->\n\nwritten after the block\n") {
		t.Fatalf("AGENTS.md:\n%s", got)
	}
	if body, _ := CodexIndex([]byte(got)); body != CodexIndexBody(hostile) {
		t.Fatalf("block body %q", body)
	}
	if changed, _ := RefreshCodexBlock(dir, hostile); changed {
		t.Fatal("rewrote an unchanged block")
	}
	if got := string(RemoveCodexIndex([]byte(got))); got != "# mine\n\nwritten after the block\n" {
		t.Fatalf("removed: %q", got)
	}
}

func TestShellWords(t *testing.T) {
	for cmd, ok := range map[string]bool{
		"/usr/local/bin/memoryd context --config /c.yaml":       true,
		"'/home/me/my tools/memoryd' context --config '/c d.y'": true,
		"memoryd context":              true,
		"/usr/bin/memoryd mcp":         false,
		"echo memoryd context":         false,
		"/x/memoryd context; rm -rf /": false,
		"/x/notmemoryd context":        false,
		"\"/x/memoryd\" context":       false,
	} {
		if got := isMemorydCommand(cmd, "context"); got != ok {
			t.Errorf("%q: %v", cmd, got)
		}
	}
}
