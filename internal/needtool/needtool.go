// Package needtool is the one rule for tests that need a program from
// outside the module (opencode, vim, systemd-analyze, claude, codex, git):
// when the program is not on PATH the test is skipped and the skip is
// counted, or, with MEMORYD_REQUIRE_TOOLS=1 in the environment (CI sets it),
// the test fails naming the program and how CI installs it. Run prints one
// line at the end of the test binary saying what was skipped and why, so a
// run that skipped half the end-to-end tests never looks like a clean pass.
//
// go test shows a passing package's output only with -v, so Run also appends
// its line to the file named by MEMORYD_SKIP_REPORT when that is set;
// scripts/test prints that file after the tests.
package needtool

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
)

// RequireEnv is the environment variable that turns a missing tool from a
// skip into a failure.
const RequireEnv = "MEMORYD_REQUIRE_TOOLS"

// ReportEnv names a file that Run appends its summary line to.
const ReportEnv = "MEMORYD_SKIP_REPORT"

// installHow says how CI gets each tool; the failure message quotes it.
var installHow = map[string]string{
	"git":             "apt-get install git (.ci/run does)",
	"vim":             "apt-get install vim (.ci/run does)",
	"tmux":            "apt-get install tmux (.ci/run does)",
	"zsh":             "apt-get install zsh (.ci/run does)",
	"fish":            "apt-get install fish (.ci/run does)",
	"sed":             "apt-get install sed",
	"systemd-analyze": "apt-get install systemd (.ci/run does)",
	"systemctl":       "apt-get install systemd (.ci/run does)",
	"opencode":        "npm install -g opencode-ai (.ci/run does, at a pinned version)",
	"claude":          "npm install -g @anthropic-ai/claude-code (.ci/run does, at a pinned version)",
	"codex":           "npm install -g @openai/codex (.ci/run does, at a pinned version)",
}

// skips records, per tool, the tests skipped because it was missing. Tests
// run in parallel, so it is guarded by mu.
var (
	mu     sync.Mutex
	skips  = map[string][]string{}
	whys   = map[string]string{} // by tool: where it was not found
	report string                // ReportEnv as the tests saw it
)

// Path returns the absolute path of tool found on PATH. When tool is
// missing, Path fails the test if MEMORYD_REQUIRE_TOOLS=1, and otherwise
// records the skip and skips the test; either way it does not return.
func Path(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err == nil {
		return p
	}
	how := installHow[tool]
	if how == "" {
		how = "add its installation to .ci/run"
	}
	Missing(t, tool, "not on PATH", how)
	return ""
}

// Missing is Path's end for a test whose need is not a program (WordNet's
// database): it fails the test if MEMORYD_REQUIRE_TOOLS=1, and otherwise
// records the skip and skips it. what is the thing, why where it was not
// found ("not on PATH"), how how CI installs it.
func Missing(t testing.TB, what, why, how string) {
	t.Helper()
	// Read here, while the test runs, so that go test's result cache keys
	// on these variables (it records only what the tests look up).
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s is %s and %s=1: this test needs it. Install it: %s", what, why, RequireEnv, how)
	}
	mu.Lock()
	skips[what] = append(skips[what], t.Name())
	whys[what] = why
	report = os.Getenv(ReportEnv)
	mu.Unlock()
	t.Skipf("%s %s (%s=1 makes this a failure; install: %s)", what, why, RequireEnv, how)
}

// Summary returns the line Run prints: how many tests were skipped for
// which missing tools, or "" when none were.
func Summary() string {
	mu.Lock()
	defer mu.Unlock()
	tools := make([]string, 0, len(skips))
	total := 0
	for tool, tests := range skips {
		tools = append(tools, tool)
		total += len(tests)
	}
	if total == 0 {
		return ""
	}
	slices.Sort(tools)
	var why []string
	for _, tool := range tools {
		w := tool + " " + whys[tool]
		if len(tools) > 1 {
			w += " (" + plural(len(skips[tool])) + ")"
		}
		why = append(why, w)
	}
	return fmt.Sprintf("skipped %s: %s (set %s=1 to make this a failure)", plural(total), strings.Join(why, ", "), RequireEnv)
}

func plural(n int) string {
	if n == 1 {
		return "1 test"
	}
	return fmt.Sprintf("%d tests", n)
}

// Run runs the tests, prints Summary (prefixed with the package) when any
// test was skipped for a missing tool, appends it to the MEMORYD_SKIP_REPORT
// file, and returns m.Run's exit code. For TestMain functions that do more
// than Main.
func Run(m *testing.M) int {
	code := m.Run()
	line := Summary()
	if line == "" {
		return code
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		line = strings.TrimSuffix(bi.Path, ".test") + ": " + line
	}
	fmt.Println(line)
	mu.Lock()
	file := report
	mu.Unlock()
	if file != "" {
		if err := appendLine(file, line); err != nil {
			fmt.Fprintf(os.Stderr, "needtool: %v\n", err)
		}
	}
	return code
}

// Main is TestMain for a package that needs nothing else: Run, then exit.
func Main(m *testing.M) { os.Exit(Run(m)) }

// appendLine appends line to file. Test binaries of several packages run at
// once; a single short O_APPEND write keeps their lines whole.
func appendLine(file, line string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
