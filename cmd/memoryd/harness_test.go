package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/stamp"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/status"
)

// binPath is the memoryd binary built once for the end-to-end tests.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "memoryd-bin-")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "memoryd")
	args := []string{"build", "-o", binPath}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build memoryd: %v\n%s", err, out)
		os.Exit(1)
	}
	code := needtool.Run(m) // reports the tests skipped for a missing tool
	os.RemoveAll(dir)
	os.Exit(code)
}

// patience bounds every wait: generous, because CI is a slow, loaded machine.
const patience = 30 * time.Second

// waitFor polls cond until it holds or patience runs out.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// world is one isolated user: a HOME, XDG folders, a notes repository with
// a memory folder, and the environment memoryd runs with.
type world struct {
	t     testing.TB
	home  string
	notes string // the notes repository
	mem   string // notes/memory
	env   []string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	home := t.TempDir()
	w := &world{t: t, home: home, notes: filepath.Join(home, "notes")}
	w.mem = filepath.Join(w.notes, "memory")
	if err := os.MkdirAll(w.mem, 0o755); err != nil {
		t.Fatal(err)
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	os.WriteFile(gitconfig, []byte("[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	w.env = []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"GIT_CONFIG_GLOBAL=" + gitconfig,
		"GIT_CONFIG_NOSYSTEM=1",
		"MEMORY_DIR=" + w.mem,
		"MEMORY_COMMIT_DEBOUNCE_MS=300",
		"MEMORY_LLM_PROVIDER=none",
		"MEMORY_LOG_LEVEL=debug",
		// Tests write their sessions before memoryd first runs; the
		// default (only sessions active since then) has its own test.
		"MEMORY_EXTRACT_SINCE=all",
	}
	w.git(w.notes, "init", "-q")
	w.write("README.md", "# notes\n", w.notes)
	w.git(w.notes, "add", "README.md")
	w.git(w.notes, "commit", "-q", "-m", "initial")
	return w
}

// git runs the git CLI in dir with the world's environment.
func (w *world) git(dir string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// show returns a file as committed at HEAD, or "" when there is none.
func (w *world) show(path string) string {
	cmd := exec.Command("git", "show", "HEAD:"+path)
	cmd.Dir, cmd.Env = w.notes, w.env
	out, _ := cmd.Output()
	return string(out)
}

// write writes a file under dir (the memory folder when dir is omitted).
func (w *world) write(name, content string, dir ...string) {
	w.t.Helper()
	d := w.mem
	if len(dir) > 0 {
		d = dir[0]
	}
	if err := os.WriteFile(filepath.Join(d, name), []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func memoryFile(typ, name, desc, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\nmetadata:\n  type: %s\n---\n%s\n", name, desc, typ, body)
}

func (w *world) index() string {
	data, _ := os.ReadFile(filepath.Join(w.mem, "MEMORY.md"))
	return string(data)
}

// subjects returns the commit subjects of the notes repository, newest first.
func (w *world) subjects() []string {
	out := w.git(w.notes, "log", "--format=%s")
	return strings.Split(out, "\n")
}

func (w *world) head() string { return w.git(w.notes, "rev-parse", "HEAD") }

// fsck asserts the repository is sound.
func (w *world) fsck() {
	w.t.Helper()
	w.git(w.notes, "fsck", "--strict", "--no-progress")
}

// status reads the daemon's status.json.
func (w *world) status() daemon.Status {
	w.t.Helper()
	var st daemon.Status
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		w.t.Fatal(err)
	}
	state.ReadJSON(sd, state.StatusFile, &st)
	return st
}

// compactState reads the persisted compaction state (churn and passes).
func (w *world) compactState() state.Compaction {
	w.t.Helper()
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		w.t.Fatal(err)
	}
	var st state.Compaction
	state.ReadJSON(sd, state.CompactionFile, &st)
	return st
}

// proc is a running memoryd.
type proc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	err  error
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// start runs memoryd with args and the world's environment (plus extra).
// The process is killed at the end of the test if still running.
func (w *world) start(extra []string, args ...string) *proc {
	w.t.Helper()
	p := &proc{done: make(chan struct{})}
	p.cmd = exec.Command(binPath, args...)
	p.cmd.Env = append(append([]string{}, w.env...), extra...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	w.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		if w.t.Failed() {
			w.t.Logf("memoryd %v output:\n%s", args, p.output())
		}
	})
	return p
}

// startDaemon starts `memoryd run` and waits for its first rebuild.
func (w *world) startDaemon(extra ...string) *proc {
	w.t.Helper()
	p := w.start(extra, "run")
	waitFor(w.t, "the daemon's first rebuild", func() bool {
		return !w.status().Index.RebuiltAt.IsZero() && w.status().PID == p.cmd.Process.Pid
	})
	return p
}

// stop sends SIGTERM and waits for a clean exit.
func (p *proc) stop(t testing.TB) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(patience):
		t.Fatalf("memoryd did not stop after SIGTERM\n%s", p.output())
	}
	if p.err != nil {
		t.Fatalf("memoryd exited with %v\n%s", p.err, p.output())
	}
}

// runCmd runs a memoryd command to completion and returns its standard
// output followed by its standard error.
func (w *world) runCmd(extra []string, args ...string) (output string, code int) {
	w.t.Helper()
	stdout, stderr, code := w.runCmd2(extra, args...)
	return stdout + stderr, code
}

// runCmd2 runs a memoryd command and returns its two outputs apart.
func (w *world) runCmd2(extra []string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	return w.runIn("", "", extra, args...)
}

func statusJSON(t testing.TB, s string) status.Report {
	var r status.Report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("status --json: %v\n%s", err, s)
	}
	return r
}

// unstamped is stamp.Strip.
var unstamped = stamp.Strip

// runIn runs a memoryd command in dir, stdin given, and returns its two
// outputs and exit status.
func (w *world) runIn(dir, stdin string, extra []string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir, cmd.Env = dir, append(append([]string{}, w.env...), extra...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}
