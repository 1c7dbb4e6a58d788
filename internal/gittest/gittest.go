// Package gittest gives tests a git CLI that behaves the same on every
// machine: a known identity, branch main, and none of the developer's own
// configuration or GIT_* variables.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
)

// Main isolates git for the whole test binary, runs the tests (through
// needtool.Run, which reports the tests skipped for a missing tool) and
// exits. Call it from TestMain.
func Main(m *testing.M) {
	cleanup, err := Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := needtool.Run(m)
	cleanup()
	os.Exit(code)
}

// Isolate points git at a new empty home with a known global config and no
// system config, and drops the variables that would redirect or re-identify
// it. The returned cleanup removes the home. For TestMain functions that do
// more than Main.
func Isolate() (cleanup func(), err error) {
	home, err := os.MkdirTemp("", "gittest-home-")
	if err != nil {
		return nil, err
	}
	global := filepath.Join(home, "gitconfig")
	cfg := "[user]\n\tname = Test User\n\temail = test@example.com\n" +
		"[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(global, []byte(cfg), 0o600); err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_AUTHOR_NAME",
		"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "XDG_CONFIG_HOME"} {
		os.Unsetenv(k)
	}
	os.Setenv("HOME", home)
	os.Setenv("GIT_CONFIG_GLOBAL", global)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return func() { os.RemoveAll(home) }, nil
}

// Run runs the git CLI in dir and returns its trimmed output, failing the
// test on error.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
