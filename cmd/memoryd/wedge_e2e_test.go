package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The running daemon is never wedged by what git or the user left behind.
// Each test starts one with two committed memories, makes a state that
// used to stop every later commit, and waits for the change to be
// committed by itself with no problem left in the status.

// startWedgeWorld starts the daemon on a folder with two memories and
// waits until both are committed.
func startWedgeWorld(t *testing.T) (*world, *proc) {
	t.Helper()
	w := newWorld(t)
	w.write("user-name.md", memoryFile("user", "name", "Name is Ada", "Ada."))
	w.write("user-lang.md", memoryFile("user", "lang", "Speaks Dutch", "Dutch."))
	p := w.startDaemon()
	waitFor(t, "the first commit of the memories", func() bool {
		return w.show("memory/user-lang.md") != "" && w.show("memory/user-name.md") != ""
	})
	return w, p
}

// committed waits for cond and for the status to show no git problem.
func (w *world) committed(what string, cond func() bool) {
	w.t.Helper()
	waitFor(w.t, what, func() bool { return cond() && w.status().Git.Problem == "" })
}

// A deletion the user staged with git rm (or git mv) is committed.
func TestRunCommitsStagedDeletion(t *testing.T) {
	w, p := startWedgeWorld(t)
	w.git(w.notes, "rm", "-q", "memory/user-name.md")
	w.git(w.notes, "mv", "memory/user-lang.md", "memory/user-language.md")
	w.committed("the staged deletion and rename committed", func() bool {
		return w.show("memory/user-name.md") == "" && w.show("memory/user-lang.md") == "" &&
			w.show("memory/user-language.md") != ""
	})
	w.write("user-city.md", memoryFile("user", "city", "Lives in Lyon", "Lyon."))
	w.committed("the next change committed", func() bool { return w.show("memory/user-city.md") != "" })
	p.stop(t)
	w.fsck()
}

// Hooks that fail or hang do not run at all.
func TestRunRunsNoHooks(t *testing.T) {
	w, p := startWedgeWorld(t)
	hooks := filepath.Join(w.notes, ".git", "hooks")
	for hook, body := range map[string]string{
		"reference-transaction": "exit 1", "prepare-commit-msg": "exit 1", "post-commit": "sleep 120",
	} {
		if err := os.WriteFile(filepath.Join(hooks, hook), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	w.write("user-city.md", memoryFile("user", "city", "Lives in Lyon", "Lyon."))
	w.committed("a commit despite the hooks", func() bool { return w.show("memory/user-city.md") != "" })
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the commit took %v", took)
	}
	p.stop(t)
	w.fsck()
}

// An index.lock left by a git killed a while ago, with no git running, is
// removed with a warning naming it, and the change is committed.
func TestRunRemovesStaleIndexLock(t *testing.T) {
	w, p := startWedgeWorld(t)
	lock := filepath.Join(w.notes, ".git", "index.lock")
	w.write("index.lock", "", filepath.Dir(lock))
	old := time.Now().Add(-5 * time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	w.write("user-pet.md", memoryFile("user", "pet", "Has a cat", "A cat."))
	w.committed("a commit after the stale lock", func() bool { return w.show("memory/user-pet.md") != "" })
	p.stop(t)
	if _, err := os.Lstat(lock); err == nil {
		t.Fatal("an index.lock is still there")
	}
	if out := p.output(); !strings.Contains(out, "removed a stale git lock file") || !strings.Contains(out, lock) {
		t.Fatalf("no warning naming the removed lock in the log:\n%s", out)
	}
	w.fsck()
}

// TestGitignoreOfEveryMarkdownFileIsSaid: with "*.md" in the notes
// repository's .gitignore nothing in the memory folder can be committed.
// memoryd commits nothing of it (the user's rule stands), and status and
// doctor say which rule blocks and how to let the files in; once the rule
// is lifted the facts are committed.
func TestGitignoreOfEveryMarkdownFileIsSaid(t *testing.T) {
	w := newWorld(t)
	if err := os.WriteFile(filepath.Join(w.notes, ".gitignore"), []byte("*.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git(w.notes, "add", ".gitignore")
	w.git(w.notes, "commit", "-q", "-m", "ignore markdown")
	p := w.startDaemon()
	defer p.stop(t)
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Uses vim for everything."))
	waitFor(t, "status to say that git ignores the folder's files", func() bool {
		st := w.status()
		for _, pr := range st.Problems() {
			if strings.Contains(pr, "git ignores the memory folder's files") && strings.Contains(pr, ".gitignore:1: *.md") {
				return true
			}
		}
		return false
	})
	out, _ := w.runCmd(nil, "status")
	if !strings.Contains(out, "git ignores the memory folder's files") || !strings.Contains(out, `"!/memory/**"`) {
		t.Errorf("status:\n%s", out)
	}
	out, code := w.runCmd(nil, "doctor")
	if code == 0 || !strings.Contains(out, "PROBLEM  ignored files: git ignores the memory folder's files (.gitignore:1: *.md)") ||
		!strings.Contains(out, `"!/memory/**"`) {
		t.Errorf("doctor (exit %d):\n%s", code, out)
	}
	if w.show("memory/user-editor.md") != "" {
		t.Fatal("an ignored file was committed")
	}
	// The fix the messages give lets them in.
	if err := os.WriteFile(filepath.Join(w.notes, ".gitignore"), []byte("*.md\n!/memory/**\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.write("user-shell.md", memoryFile("user", "shell", "Uses zsh", "Uses zsh."))
	waitFor(t, "the facts to be committed once the rule is lifted", func() bool {
		return w.show("memory/user-editor.md") != "" && w.show("memory/user-shell.md") != ""
	})
	waitFor(t, "the problem to clear", func() bool { return len(w.status().Git.Ignored) == 0 })
}
