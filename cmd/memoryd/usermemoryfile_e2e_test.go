package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUserMemoryFilesSurvive: a person's own MEMORY.<word>.md files at the
// top of the memory folder — one under a name no project uses
// (MEMORY.notes.md), one under the name of a project that has memories
// (MEMORY.app.md) — are neither removed nor overwritten by `memoryd
// rebuild` or by a running daemon, and stay committed; status says that
// project app's index is not written.
func TestUserMemoryFilesSurvive(t *testing.T) {
	w := newWorld(t)
	w.write("user-theme.md", memoryFile("user", "theme", "Prefers dark mode", "Dark mode everywhere."))
	w.write("project-deploy.md", "---\nname: deploy\ndescription: How app deploys\nmetadata:\n  type: project\n  project: app\n---\nDeploy with make.\n")
	mine := map[string]string{
		"MEMORY.notes.md": "# My notes\n\nThings I keep by hand.\n",
		"MEMORY.app.md":   "# app\n\nMy own page about app.\n",
	}
	for name, text := range mine {
		w.write(name, text)
	}
	w.git(w.notes, "add", "memory/MEMORY.notes.md", "memory/MEMORY.app.md")
	w.git(w.notes, "commit", "-q", "-m", "my own notes")

	onDisk := func(when string) {
		t.Helper()
		for name, text := range mine {
			if got, err := os.ReadFile(filepath.Join(w.mem, name)); err != nil || string(got) != text {
				t.Fatalf("%s: %s on disk is %q (%v), want the person's %q", when, name, got, err, text)
			}
		}
	}
	committed := func(when string) {
		t.Helper()
		for name, text := range mine {
			if got := w.show("memory/" + name); got != text {
				t.Fatalf("%s: %s at HEAD is %q, want the person's %q", when, name, got, text)
			}
		}
	}

	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		t.Fatalf("rebuild: exit %d\n%s", code, out)
	}
	onDisk("after rebuild")
	if idx := w.index(); !strings.Contains(idx, "(user-theme.md)") || !strings.Contains(idx, "(MEMORY.app.md)") {
		t.Fatalf("MEMORY.md after rebuild:\n%s", idx)
	}

	p := w.startDaemon()
	waitFor(t, "the daemon's commit of the memories", func() bool {
		return strings.Contains(w.show("memory/MEMORY.md"), "(user-theme.md)")
	})
	// A change while the daemon runs: an incremental rebuild and commit.
	w.write("feedback-tabs.md", memoryFile("feedback", "tabs", "Prefers tabs", "Use tabs."))
	waitFor(t, "the commit of a new memory", func() bool {
		return strings.Contains(w.show("memory/MEMORY.md"), "(feedback-tabs.md)")
	})
	onDisk("with the daemon running")
	committed("with the daemon running")
	waitFor(t, "status to say app's index is not written", func() bool {
		b := w.status().Index.Blocked
		return len(b) == 1 && strings.Contains(b[0], "MEMORY.app.md") && strings.Contains(b[0], "project app")
	})
	out, _, _ := w.runCmd2(nil, "status", "--json")
	if r := statusJSON(t, out); !slices.ContainsFunc(r.Problems, func(s string) bool { return strings.Contains(s, "MEMORY.app.md") }) ||
		slices.ContainsFunc(r.Problems, func(s string) bool { return strings.Contains(s, "MEMORY.notes.md") }) {
		t.Fatalf("status problems %q", r.Problems)
	}
	p.stop(t)
	onDisk("after stop")
	committed("after stop")
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean after stop:\n%s", st)
	}
	w.fsck()
}
