package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContext: what an agent loads at session start — MEMORY.md with the
// project's index in project A's directory, never project B's facts; the
// project's index alone with --project-only; a short notice and success
// when the memory folder is missing.
func TestContext(t *testing.T) {
	w := newWorld(t)
	addFact(t, w, "feedback", "indent-with-tabs", "Indent with tabs", "Always use tabs, never spaces.")
	addFact(t, w, "project", "alpha-deploy", "Alpha deploys with make ship", "Deploy alpha with make ship.", "--project", "alpha")
	addFact(t, w, "project", "beta-deploy", "Beta deploys with kubectl", "Deploy beta with kubectl apply.", "--project", "beta")
	alpha := filepath.Join(w.home, "src", "alpha")
	os.MkdirAll(filepath.Join(alpha, "sub"), 0o755)
	w.git(alpha, "init", "-q")

	for _, fast := range []bool{true, false} {
		if !fast { // without the generated files: from the facts themselves
			os.Remove(filepath.Join(w.mem, "MEMORY.alpha.md"))
		}
		out, _, code := w.runCmd2(nil, "context", "--dir", filepath.Join(alpha, "sub"))
		if code != 0 || !strings.Contains(out, "feedback-indent-with-tabs.md") || !strings.Contains(out, "project-alpha-deploy.md") ||
			strings.Contains(out, "beta-deploy") || !strings.Contains(out, "# Memory — alpha") {
			t.Fatalf("context in alpha (generated files: %v): %d\n%s", fast, code, out)
		}
		out, _, _ = w.runCmd2(nil, "context", "--project-only", "--dir", alpha)
		if strings.Contains(out, "indent-with-tabs") || !strings.Contains(out, "project-alpha-deploy.md") {
			t.Fatalf("--project-only (generated files: %v):\n%s", fast, out)
		}
	}
	out, _, _ := w.runCmd2(nil, "context", "--project-only", "--dir", w.home)
	if out != "" {
		t.Fatalf("--project-only outside any project with facts printed:\n%s", out)
	}
	out, errOut, code := w.runCmd2([]string{"MEMORY_DIR=" + filepath.Join(w.home, "nowhere")}, "context")
	if code != 0 || out != "" || !strings.Contains(errOut, "no memory folder at") {
		t.Fatalf("missing folder: %d %q %q", code, out, errOut)
	}
}
