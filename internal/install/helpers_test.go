package install

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/needtool"
)

// stand-in service managers: shell scripts that log every call to a file
// and keep "enabled", "active" and "loaded" as marker files in a state
// folder, so tests can check which commands install ran and in what order.
const fakeSystemctl = `#!/bin/sh
echo "systemctl $*" >> "$LOG"
[ "$1" = --user ] || { echo "not --user" >&2; exit 9; }
shift
if [ -e "$STATE/nomanager" ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi
case "$1" in
show-environment) echo "LANG=C.UTF-8"; echo "HOME=$HOME"; [ -n "$XDG_CONFIG_HOME" ] && echo "XDG_CONFIG_HOME=$XDG_CONFIG_HOME"; echo "PATH=/usr/bin" ;;
daemon-reload) ;;
is-enabled) if [ -e "$STATE/enabled" ]; then echo enabled; else echo disabled; exit 1; fi ;;
is-active) if [ -e "$STATE/active" ]; then echo active; else echo inactive; exit 3; fi ;;
enable) touch "$STATE/enabled" ;;
disable) rm -f "$STATE/enabled"; [ "$2" = --now ] && rm -f "$STATE/active" ;;
start|restart) touch "$STATE/active" ;;
stop) rm -f "$STATE/active" ;;
*) echo "unexpected: $*" >&2; exit 9 ;;
esac
`

const fakeLaunchctl = `#!/bin/sh
echo "launchctl $*" >> "$LOG"
case "$1" in
print)
  case "$2" in
  */*/*) if [ -e "$STATE/loaded" ]; then printf '%s = {\n\tstate = running\n\tpid = 4242\n}\n' "$2"; else echo "Could not find service" >&2; exit 113; fi ;;
  *) echo "domain $2" ;;
  esac ;;
bootstrap)
  [ -f "$3" ] || { echo "no plist $3" >&2; exit 5; }
  n=$(cat "$STATE/bootstrap-fails" 2>/dev/null || echo 0)
  if [ "$n" -gt 0 ]; then echo $((n - 1)) > "$STATE/bootstrap-fails"; echo "Bootstrap failed: 5: Input/output error" >&2; exit 5; fi
  touch "$STATE/loaded" ;;
bootout) rm -f "$STATE/loaded" ;;
kickstart) ;;
*) echo "unexpected: $*" >&2; exit 9 ;;
esac
`

// env is one test's world: a home folder, a config home, a memory folder
// inside a real git repository, a binary, and stand-in managers on PATH.
type env struct {
	t     *testing.T
	root  string
	log   string
	state string
	opts  Options
}

func newEnv(t *testing.T, goos string) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, root: root, log: filepath.Join(root, "calls.log"), state: filepath.Join(root, "state")}
	bin := filepath.Join(root, "fakebin")
	for _, d := range []string{bin, e.state, filepath.Join(root, "home"), filepath.Join(root, "notes")} {
		mustMkdir(t, d)
	}
	for name, script := range map[string]string{"systemctl": fakeSystemctl, "launchctl": fakeLaunchctl} {
		vars := "LOG=" + shellQuote(e.log) + "\nSTATE=" + shellQuote(e.state) + "\n"
		script = strings.Replace(script, "\n", "\n"+vars, 1) // after the #! line
		writeFile(t, filepath.Join(bin, name), script, 0o755)
	}
	gitPath := needtool.Path(t, "git")
	gitRun(t, filepath.Join(root, "notes"), "init", "--quiet")
	memoryd := filepath.Join(root, "opt", "memoryd")
	mustMkdir(t, filepath.Dir(memoryd))
	writeFile(t, memoryd, "#!/bin/sh\nexit 0\n", 0o755)
	e.opts = Options{
		Home:          filepath.Join(root, "home"),
		XDGConfigHome: filepath.Join(root, "xdg-config"),
		Binary:        memoryd,
		ConfigPath:    filepath.Join(root, "xdg-config", "memoryd", "config.yaml"),
		MemoryDir:     filepath.Join(root, "notes", "memory"),
		OpenCode:      true,
		Path:          bin + ":" + filepath.Dir(gitPath) + ":/bin",
		// The stand-in systemctl shows this as the user manager's environment.
		Env:  []string{"HOME=" + filepath.Join(root, "home"), "XDG_CONFIG_HOME=" + filepath.Join(root, "xdg-config")},
		GOOS: goos,
	}
	return e
}

// calls returns the logged commands, one per line, and empties the log.
func (e *env) calls() []string {
	data, err := os.ReadFile(e.log)
	if err != nil && !os.IsNotExist(err) {
		e.t.Fatal(err)
	}
	os.Remove(e.log)
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// mutating filters calls down to those that change the service.
func mutating(calls []string) []string {
	var out []string
	for _, c := range calls {
		for _, verb := range []string{" enable", " disable", " start", " stop", " restart", " daemon-reload", " bootstrap", " bootout", " kickstart"} {
			if strings.Contains(c, verb) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

type fileState struct {
	data  string
	mtime time.Time
}

// snapshot records every file under the test's root except the call log.
func (e *env) snapshot() map[string]fileState {
	e.t.Helper()
	snap := map[string]fileState{}
	err := filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || p == e.state) || p == e.log {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			fi, _ := d.Info()
			data, _ := os.ReadFile(p)
			snap[p] = fileState{string(data), fi.ModTime()}
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return snap
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, data string, perm fs.FileMode) {
	t.Helper()
	mustMkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
