package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNotAMemoryFolderRefused: run, extract and install refuse a notes root
// (markdown files without frontmatter outnumbering facts) and the home
// folder, saying why and nothing written; a new folder, an empty one and a
// memory folder with an odd README.md beside its facts are accepted.
func TestNotAMemoryFolderRefused(t *testing.T) {
	w := newWorld(t)
	for _, n := range []string{"todo.md", "ideas.md", "journal.md"} {
		w.write(n, "# "+n+"\n\nplain notes\n", w.notes)
	}
	// run would serve the folder until stopped: give it patience to refuse.
	p := w.start([]string{"MEMORY_DIR="}, "run", "--memory-dir", w.notes)
	select {
	case <-p.done:
		if p.err == nil || !strings.Contains(p.output(), "does not look like a memory folder") {
			t.Errorf("run on a notes root: %v, want a refusal with the reason\n%s", p.err, p.output())
		}
	case <-time.After(patience):
		p.stop(t)
		t.Errorf("run on a notes root served it:\n%s", p.output())
	}
	for _, c := range [][]string{
		{"extract", "--dry-run", "--memory-dir", w.notes},
		{"install", "--no-service", "--memory-dir", w.notes},
		{"install", "--no-service", "--memory-dir", w.home},
	} {
		out, code := w.runCmd([]string{"MEMORY_DIR="}, c...)
		if code == 0 || !(strings.Contains(out, "does not look like a memory folder") || strings.Contains(out, "is your home folder")) {
			t.Errorf("%v: exit %d, want a refusal with the reason\n%s", c, code, out)
		}
		if c[len(c)-1] == w.notes && strings.Contains(out, "does not look like") && !strings.Contains(out, "ideas.md") {
			t.Errorf("%v: the reason names no file\n%s", c, out)
		}
	}
	for _, n := range []string{"MEMORY.md", "PROTOCOL.md"} {
		if _, err := os.Stat(filepath.Join(w.notes, n)); !os.IsNotExist(err) {
			t.Errorf("%s written into the notes root: %v", n, err)
		}
	}

	// Accepted: a new folder (install creates it), then a memory folder
	// with an odd README.md and two non-facts beside its facts.
	fresh := filepath.Join(w.notes, "agent-memory")
	if out, code := w.runCmd([]string{"MEMORY_DIR="}, "install", "--no-service", "--memory-dir", fresh); code != 0 {
		t.Fatalf("install into a new folder: exit %d\n%s", code, out)
	}
	w.write("README.md", "# my memory\n")
	w.write("scratch.md", "scratch\n")
	w.write("user-prefers-tabs.md", memoryFile("user", "prefers-tabs", "Prefers tabs", "Tabs."))
	w.write("user-uses-pnpm.md", memoryFile("user", "uses-pnpm", "Uses pnpm", "pnpm."))
	w.write("feedback-short.md", memoryFile("feedback", "short", "Short answers", "Short."))
	p = w.startDaemon()
	waitFor(t, "MEMORY.md in a memory folder with an odd file", func() bool {
		_, err := os.Stat(filepath.Join(w.mem, "MEMORY.md"))
		return err == nil
	})
	p.stop(t)
}
