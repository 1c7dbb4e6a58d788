package gitstore

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/gittest"
)

// testIdentity is the user.name/user.email of the global config the tests
// run with, so no test depends on the machine's identity.
const testIdentity = "Test User <test@example.com>"

// benchCleanup removes what the benchmarks built; they set it.
var benchCleanup = func() {}

// TestMain isolates git (internal/gittest) and removes what the benchmarks built.
func TestMain(m *testing.M) {
	cleanup, err := gittest.Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	benchCleanup()
	cleanup()
	os.Exit(code)
}

// cli runs the git CLI in dir and returns its trimmed output; it fails the
// test on error.
func cli(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := cliErr(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func cliErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "LC_ALL=C", "GIT_EDITOR=:")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// newRepo makes an empty repository with a memory folder at rel ("" for the
// top) and checks it with git fsck when the test ends.
func newRepo(t *testing.T, rel string) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	cli(t, root, "init", "-q", "-b", "main")
	dir = filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsck(t, root) })
	return root, dir
}

// fsck fails the test when git fsck finds anything wrong in root's repo.
func fsck(t testing.TB, root string) {
	t.Helper()
	out, err := cliErr(root, "fsck", "--strict", "--no-progress", "--no-dangling")
	if err != nil {
		t.Errorf("fsck: %v", err)
		return
	}
	for _, line := range strings.Split(out, "\n") {
		if line != "" && !strings.HasPrefix(line, "notice:") { // notices: unborn branch
			t.Errorf("fsck reports: %s", out)
			return
		}
	}
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t testing.TB, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// commitAll commits everything in root with the CLI.
func commitAll(t testing.TB, root, msg string) string {
	t.Helper()
	cli(t, root, "add", "-A")
	cli(t, root, "commit", "-q", "--allow-empty", "-m", msg)
	return cli(t, root, "rev-parse", "HEAD")
}

// tracked stands in for index.Tracked: markdown files outside hidden
// directories, no hidden files, no editor leftovers.
func tracked(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return strings.HasSuffix(rel, ".md")
}

func open(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func changes(t testing.TB, r *Repo) string {
	t.Helper()
	cs, err := r.Changes(tracked)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%c %s\n", c.Status, c.Path)
	}
	return b.String()
}

func mustBusy(t testing.TB, r *Repo, want string) {
	t.Helper()
	err := r.Busy()
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Busy() = %v, want ErrBusy", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("Busy() = %q, want it to mention %q", err, want)
	}
}
