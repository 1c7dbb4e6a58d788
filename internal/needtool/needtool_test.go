package needtool_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
)

func TestMain(m *testing.M) { needtool.Main(m) }

const helperEnv = "NEEDTOOL_HELPER"

// TestHelperNeedsMissingTool is the test the others run in a child test
// binary: two subtests that need a tool no machine has.
func TestHelperNeedsMissingTool(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("only run as a child of the tests below")
	}
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			needtool.Path(t, "memoryd-no-such-tool")
			t.Error("Path returned for a missing tool")
		})
	}
}

// child runs TestHelperNeedsMissingTool in a new test binary with extra
// environment and returns its output and exit code.
func child(t *testing.T, extra ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperNeedsMissingTool$", "-test.v", "-test.count=1")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, needtool.RequireEnv+"=") && !strings.HasPrefix(kv, needtool.ReportEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(append(env, helperEnv+"=1"), extra...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func TestMissingToolIsSkippedAndSummarised(t *testing.T) {
	report := filepath.Join(t.TempDir(), "skips")
	out, code := child(t, needtool.ReportEnv+"="+report)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	want := "github.com/memoryd/memoryd/internal/needtool: skipped 2 tests: memoryd-no-such-tool not on PATH (set MEMORYD_REQUIRE_TOOLS=1 to make this a failure)"
	if !strings.Contains(out, want+"\n") || strings.Count(out, "--- SKIP") != 2 {
		t.Errorf("child output lacks two skips and the summary %q:\n%s", want, out)
	}
	data, err := os.ReadFile(report)
	if err != nil || string(data) != want+"\n" {
		t.Errorf("report file: %q, %v", data, err)
	}
}

func TestMissingToolFailsWhenRequired(t *testing.T) {
	out, code := child(t, needtool.RequireEnv+"=1")
	if code != 1 || strings.Count(out, "--- FAIL") != 3 { // two subtests and their parent
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{"memoryd-no-such-tool is not on PATH and MEMORYD_REQUIRE_TOOLS=1", ".ci/run"} {
		if !strings.Contains(out, want) {
			t.Errorf("failure does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "skipped 2 tests") {
		t.Errorf("a required tool was counted as a skip:\n%s", out)
	}
}

func TestPresentToolIsFound(t *testing.T) {
	if p := needtool.Path(t, "sh"); !filepath.IsAbs(p) {
		t.Errorf("Path(sh) = %q", p)
	}
}

// TestOtherSkipsAreNotCounted runs after TestHelperNeedsMissingTool skipped
// in this binary for another reason: only missing tools are summarised.
func TestOtherSkipsAreNotCounted(t *testing.T) {
	if s := needtool.Summary(); s != "" {
		t.Errorf("Summary = %q", s)
	}
}
