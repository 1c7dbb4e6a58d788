package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
)

// fakeServiceTools puts stand-in systemctl and loginctl first on PATH. The
// user manager answers as if memoryd were enabled and active when running is
// true; loginctl reports lingering as linger says.
func fakeServiceTools(t *testing.T, w *world, running bool, linger string) []string {
	bin := filepath.Join(w.home, "fakebin")
	os.MkdirAll(bin, 0o755)
	enabled, active := "disabled", "inactive"
	if running {
		enabled, active = "enabled", "active"
	}
	systemctl := `#!/bin/sh
[ "$1" = "--user" ] && shift
case "$1" in
show-environment) echo "HOME=` + w.home + `"; echo "XDG_CONFIG_HOME=` + filepath.Join(w.home, ".config") + `" ;;
is-enabled) echo ` + enabled + ` ;;
is-active) echo ` + active + ` ;;
*) exit 0 ;;
esac
`
	loginctl := "#!/bin/sh\necho " + linger + "\n"
	os.WriteFile(filepath.Join(bin, "systemctl"), []byte(systemctl), 0o755)
	os.WriteFile(filepath.Join(bin, "loginctl"), []byte(loginctl), 0o755)
	return []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "USER=tester"}
}

// installUnit writes a unit file where the stand-in manager looks.
func installUnit(t *testing.T, w *world) {
	dir := filepath.Join(w.home, ".config", "systemd", "user")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "memoryd.service"), []byte("[Service]\nExecStart=/bin/true\n"), 0o644)
}

// doctorOut runs memoryd doctor and returns its output and exit status.
func doctorOut(t *testing.T, w *world, extra ...string) (string, int) {
	t.Helper()
	out, code := w.runCmd(extra, "doctor")
	return out, code
}

// problem asserts doctor failed naming check, with text in the problem and
// fix in the fix line.
func problem(t *testing.T, out string, code int, check, text, fix string) {
	t.Helper()
	if code != 1 {
		t.Errorf("doctor exit %d, want 1\n%s", code, out)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "PROBLEM  "+check+": ") && strings.Contains(l, text) {
			if fix == "" || (i+1 < len(lines) && strings.Contains(lines[i+1], "fix:") && strings.Contains(lines[i+1], fix)) {
				return
			}
		}
	}
	t.Errorf("doctor output lacks problem %q (%q, fix %q):\n%s", check, text, fix, out)
}

func TestDoctorChecks(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, w *world) []string // returns extra environment
		check string
		text  string
		fix   string
	}{
		{"memory folder missing", func(t *testing.T, w *world) []string {
			return []string{"MEMORY_DIR=" + filepath.Join(w.home, "nowhere")}
		}, "memory folder", "does not exist", "memoryd install"},
		{"git not on PATH", func(t *testing.T, w *world) []string {
			return []string{"PATH=" + t.TempDir()}
		}, "git", "not on PATH", "install git"},
		{"no repository", func(t *testing.T, w *world) []string {
			plain := filepath.Join(w.home, "plain", "memory")
			os.MkdirAll(plain, 0o755)
			return []string{"MEMORY_DIR=" + plain}
		}, "git repository", "not inside a git repository", "init"},
		{"no author identity", func(t *testing.T, w *world) []string {
			empty := filepath.Join(w.home, "empty.gitconfig")
			os.WriteFile(empty, nil, 0o644)
			return []string{"GIT_CONFIG_GLOBAL=" + empty}
		}, "git author", "no git identity", "git config --global user.email"},
		{"unreadable file", func(t *testing.T, w *world) []string {
			w.write("user-bad.md", "---\nname: [unclosed\n---\nbody\n")
			return nil
		}, "memory files", "user-bad.md", "fix the file"},
		{"conflict markers", func(t *testing.T, w *world) []string {
			w.write("user-merge.md", "---\nname: merge\ndescription: x\nmetadata:\n  type: user\n---\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> other\n")
			return nil
		}, "memory files", "user-merge.md", "resolve the git conflict"},
		{"index over budget", func(t *testing.T, w *world) []string {
			for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
				w.write("user-"+n+".md", memoryFile("user", n, "fact "+n, "x"))
			}
			return []string{"MEMORYD_CONFIG=" + writeConfig(t, w, "index:\n  max_lines: 8\n")}
		}, "index budget", "agents load at most 8 lines", "memoryd compact"},
		{"open contradictions", func(t *testing.T, w *world) []string {
			w.write("_CONFLICTS.md", "# Conflicts\n\n## user-a.md vs user-b.md\nThey disagree.\n")
			return nil
		}, "contradictions", "1 unresolved", "_CONFLICTS.md"},
		{"service not installed", func(t *testing.T, w *world) []string {
			return fakeServiceTools(t, w, false, "yes")
		}, "service", "not installed", "memoryd install"},
		{"service not running", func(t *testing.T, w *world) []string {
			installUnit(t, w)
			return fakeServiceTools(t, w, false, "yes")
		}, "service", "not running", "memoryd start"},
		{"no lingering", func(t *testing.T, w *world) []string {
			installUnit(t, w)
			return fakeServiceTools(t, w, true, "no")
		}, "lingering", "stops when you log out", "loginctl enable-linger tester"},
		{"no user manager", func(t *testing.T, w *world) []string {
			return []string{"PATH=" + onlyGit(t), "XDG_RUNTIME_DIR=" + t.TempDir()}
		}, "service", "no per-user service manager", " run --config "},
		{"llm unreachable", func(t *testing.T, w *world) []string {
			return []string{"MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL=http://127.0.0.1:1/v1"}
		}, "llm provider", "not reachable", "llm.base_url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			extra := tc.setup(t, w)
			out, code := doctorOut(t, w, extra...)
			problem(t, out, code, tc.check, tc.text, tc.fix)
		})
	}
}

func TestDoctorOpenCodeInstructions(t *testing.T) {
	needtool.Path(t, "opencode")
	w := newWorld(t)
	out, code := doctorOut(t, w)
	// OpenCode on PATH but memoryd never wired into it: not used, no problem.
	if !strings.Contains(out, "not used opencode instructions: memoryd is not wired into OpenCode") || strings.Contains(out, "PROBLEM  opencode instructions") {
		t.Errorf("an OpenCode memoryd is not wired into is a problem:\n%s", out)
	}
	// Half wired (the MCP server, no instructions): a problem.
	cfgDir := filepath.Join(w.home, ".config", "opencode")
	os.MkdirAll(cfgDir, 0o755)
	os.WriteFile(filepath.Join(cfgDir, "opencode.json"), []byte(`{"mcp": {"memoryd": {"type": "local", "command": ["memoryd", "mcp"]}}}`), 0o644)
	out, code = doctorOut(t, w)
	problem(t, out, code, "opencode instructions", "does not load", "memoryd install --opencode")
	// Wire it as install would; the check then passes.
	os.WriteFile(filepath.Join(cfgDir, "opencode.json"), []byte(`{"instructions": ["`+
		filepath.Join(w.mem, "PROTOCOL.md")+`", "`+filepath.Join(w.mem, "MEMORY.md")+`"]}`), 0o644)
	out, _ = doctorOut(t, w)
	if !strings.Contains(out, "ok       opencode instructions") {
		t.Errorf("wired instructions not recognised:\n%s", out)
	}
}

// onlyGit returns a folder holding just a link to git, for a PATH without
// systemctl.
func onlyGit(t *testing.T) string {
	dir := t.TempDir()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	os.Symlink(git, filepath.Join(dir, "git"))
	return dir
}

func writeConfig(t *testing.T, w *world, body string) string {
	path := filepath.Join(w.home, "memoryd-config.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
