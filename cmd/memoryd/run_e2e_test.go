package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/needtool"
)

func TestRunCreateEditRenameDelete(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()

	w.write("feedback-prefers-tabs.md", memoryFile("feedback", "prefers-tabs", "Prefers tabs over spaces", "Use tabs."))
	waitFor(t, "index entry", func() bool {
		return strings.Contains(w.index(), "- [Prefers tabs](feedback-prefers-tabs.md) — Prefers tabs over spaces\n")
	})
	waitFor(t, "commit of the new file", func() bool {
		return strings.Contains(w.show("memory/MEMORY.md"), "feedback-prefers-tabs.md")
	})
	if got := w.git(w.notes, "show", "HEAD:memory/feedback-prefers-tabs.md"); !strings.Contains(got, "Use tabs.") {
		t.Fatalf("committed file content: %q", got)
	}
	if got := w.show("memory/MEMORY.md"); got != w.index() {
		t.Fatalf("committed MEMORY.md differs from the file on disk:\n%s", got)
	}

	// Edit: new description.
	w.write("feedback-prefers-tabs.md", memoryFile("feedback", "prefers-tabs", "Tabs, always", "Use tabs."))
	waitFor(t, "edited description in the index", func() bool { return strings.Contains(w.index(), "— Tabs, always\n") })
	waitFor(t, "commit of the edit", func() bool {
		return strings.Contains(w.show("memory/MEMORY.md"), "Tabs, always")
	})
	if s := w.subjects()[0]; s != "memory: update MEMORY.md, feedback-prefers-tabs.md" {
		t.Errorf("edit commit subject %q", s)
	}

	// Rename.
	os.Rename(filepath.Join(w.mem, "feedback-prefers-tabs.md"), filepath.Join(w.mem, "feedback-tabs.md"))
	waitFor(t, "renamed file in the index", func() bool {
		idx := w.index()
		return strings.Contains(idx, "(feedback-tabs.md)") && !strings.Contains(idx, "(feedback-prefers-tabs.md)")
	})
	waitFor(t, "commit of the rename", func() bool {
		files := w.git(w.notes, "ls-tree", "--name-only", "HEAD", "memory/")
		return strings.Contains(files, "memory/feedback-tabs.md") && !strings.Contains(files, "prefers-tabs")
	})

	// Delete.
	os.Remove(filepath.Join(w.mem, "feedback-tabs.md"))
	waitFor(t, "deleted file gone from the index", func() bool { return !strings.Contains(w.index(), "feedback-tabs.md") })
	waitFor(t, "commit of the deletion", func() bool {
		return !strings.Contains(w.git(w.notes, "ls-tree", "--name-only", "HEAD", "memory/"), "feedback-tabs.md")
	})
	p.stop(t)
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean after stop:\n%s", st)
	}
	w.fsck()
}

func TestRunEditorSaves(t *testing.T) {
	needtool.Path(t, "vim")
	w := newWorld(t)
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Vim everywhere."))
	w.write("user-shell.md", memoryFile("user", "shell", "Uses zsh", "Zsh."))
	p := w.startDaemon()
	waitFor(t, "initial index", func() bool { return strings.Contains(w.index(), "— Uses zsh\n") })

	edits := []struct {
		name string
		cmd  []string
		want string
	}{
		// vim's default save: backup file, 4913 probe, rename or copy.
		{"vim default", []string{"vim", "-es", "-u", "NONE", "-c", "set nocompatible", "-c", "%s/Uses vim/Uses vim daily/", "-c", "wq", "user-editor.md"}, "— Uses vim daily\n"},
		// vim saving by renaming a new file over the old one.
		{"vim rename", []string{"vim", "-es", "-u", "NONE", "-c", "set nocompatible backup writebackup backupcopy=no", "-c", "%s/Uses vim daily/Uses neovim/", "-c", "wq", "user-editor.md"}, "— Uses neovim\n"},
		{"sed -i", []string{"sed", "-i", "s/Uses zsh/Uses fish/", "user-shell.md"}, "— Uses fish\n"},
	}
	for _, e := range edits {
		cmd := exec.Command(e.cmd[0], e.cmd[1:]...)
		cmd.Dir, cmd.Env = w.mem, w.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", e.name, err, out)
		}
		waitFor(t, e.name+" reflected in MEMORY.md", func() bool { return strings.Contains(w.index(), e.want) })
	}
	waitFor(t, "edits committed", func() bool {
		idx := w.show("memory/MEMORY.md")
		return strings.Contains(idx, "Uses neovim") && strings.Contains(idx, "Uses fish")
	})
	p.stop(t)
	// Editor leftovers were never committed.
	files := w.git(w.notes, "ls-tree", "-r", "--name-only", "HEAD")
	for _, bad := range []string{"4913", "~", ".swp"} {
		if strings.Contains(files, bad) {
			t.Errorf("editor leftover %q committed:\n%s", bad, files)
		}
	}
	w.fsck()
}

func TestRunManyRapidWrites(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	before := len(w.subjects())
	const n = 1000
	for i := range n {
		// 100 files, each rewritten 10 times, as fast as we can.
		name := fmt.Sprintf("project-fact-%03d", i%100)
		w.write(name+".md", memoryFile("project", name, fmt.Sprintf("Fact %d revision %d", i%100, i/100), "Body."))
	}
	waitFor(t, "final revisions in MEMORY.md", func() bool {
		idx := w.index()
		return strings.Count(idx, "revision 9\n") == 100
	})
	waitFor(t, "final state committed", func() bool {
		return strings.Count(w.show("memory/MEMORY.md"), "revision 9\n") == 100
	})
	p.stop(t)
	commits := len(w.subjects()) - before
	if commits > 8 {
		t.Errorf("%d commits for one burst of %d writes; want a handful", commits, n)
	}
	t.Logf("%d writes → %d commits", n, commits)
	w.fsck()
}

func TestRunUnrelatedStagedFileUntouched(t *testing.T) {
	w := newWorld(t)
	w.write("todo.txt", "buy milk\n", w.notes)
	w.git(w.notes, "add", "todo.txt")
	p := w.startDaemon()
	w.write("user-name.md", memoryFile("user", "name", "Name is Ada", "Ada."))
	waitFor(t, "memory commit", func() bool {
		return strings.Contains(w.git(w.notes, "log", "--name-only", "--format="), "memory/user-name.md")
	})
	p.stop(t)
	if staged := w.git(w.notes, "diff", "--cached", "--name-only"); staged != "todo.txt" {
		t.Fatalf("staged files now %q, want todo.txt still staged", staged)
	}
	if all := w.git(w.notes, "log", "--name-only", "--format="); strings.Contains(all, "todo.txt") {
		t.Fatal("the user's staged file was committed")
	}
}

func TestRunWaitsForIndexLock(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	waitFor(t, "initial commit", func() bool { return !w.status().Git.LastCheckAt.IsZero() })
	head := w.head()
	lock := filepath.Join(w.notes, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	w.write("user-lang.md", memoryFile("user", "lang", "Speaks Dutch", "Dutch."))
	waitFor(t, "commit postponed while index.lock exists", func() bool {
		return strings.Contains(w.status().Git.Problem, "index.lock")
	})
	if w.head() != head {
		t.Fatal("committed while index.lock was present")
	}
	os.Remove(lock)
	waitFor(t, "commit after the lock went away", func() bool { return w.head() != head })
	if !strings.Contains(w.git(w.notes, "show", "--name-only", "HEAD"), "memory/user-lang.md") {
		t.Fatal("the postponed change is not in the commit")
	}
	p.stop(t)
	w.fsck()
}

func TestRunWaitsForUnfinishedMerge(t *testing.T) {
	w := newWorld(t)
	// A conflicted merge outside the memory folder.
	w.write("plan.txt", "a\n", w.notes)
	w.git(w.notes, "add", "plan.txt")
	w.git(w.notes, "commit", "-q", "-m", "plan")
	w.git(w.notes, "checkout", "-q", "-b", "other")
	w.write("plan.txt", "b\n", w.notes)
	w.git(w.notes, "commit", "-q", "-am", "other plan")
	w.git(w.notes, "checkout", "-q", "main")
	w.write("plan.txt", "c\n", w.notes)
	w.git(w.notes, "commit", "-q", "-am", "main plan")

	p := w.startDaemon()
	waitFor(t, "initial commit", func() bool { return !w.status().Git.LastCheckAt.IsZero() })
	cmd := exec.Command("git", "merge", "other")
	cmd.Dir, cmd.Env = w.notes, w.env
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("merge should conflict:\n%s", out)
	}
	head := w.head()
	w.write("user-city.md", memoryFile("user", "city", "Lives in Lyon", "Lyon."))
	waitFor(t, "daemon paused by the merge", func() bool { return w.status().Git.Paused })
	if strings.Contains(w.index(), "user-city.md") {
		t.Fatal("MEMORY.md was rewritten during the merge")
	}
	if w.head() != head {
		t.Fatal("committed during the merge")
	}
	// The user concludes the merge.
	w.write("plan.txt", "resolved\n", w.notes)
	w.git(w.notes, "add", "plan.txt")
	w.git(w.notes, "commit", "-q", "--no-edit")
	waitFor(t, "memory committed after the merge", func() bool {
		return strings.Contains(w.git(w.notes, "log", "-1", "--name-only", "--format="), "memory/user-city.md")
	})
	if !strings.Contains(w.index(), "(user-city.md)") {
		t.Fatal("index not rebuilt after the merge")
	}
	p.stop(t)
	w.fsck()
}

func TestRunPullMakesNoCommit(t *testing.T) {
	w := newWorld(t)
	origin := filepath.Join(w.home, "origin.git")
	w.git(w.home, "init", "-q", "--bare", origin)
	w.git(w.notes, "remote", "add", "origin", origin)
	w.git(w.notes, "push", "-q", "origin", "main")
	w.git(w.notes, "branch", "-q", "--set-upstream-to=origin/main")

	p := w.startDaemon()
	waitFor(t, "initial commit", func() bool { return !w.status().Git.LastCheckAt.IsZero() })
	w.git(w.notes, "push", "-q", "origin", "main")

	// Another machine adds a fact and its rebuilt index, and pushes.
	other := filepath.Join(w.home, "other")
	w.git(w.home, "clone", "-q", origin, other)
	w.write("reference-wiki.md", memoryFile("reference", "wiki", "Team wiki lives at wiki.example", "See the wiki."), filepath.Join(other, "memory"))
	if out, code := w.runCmd(nil, "rebuild", "--memory-dir", filepath.Join(other, "memory")); code != 0 {
		t.Fatalf("rebuild on the other clone: %s", out)
	}
	w.git(other, "add", "-A")
	w.git(other, "commit", "-q", "-m", "from the other machine")
	w.git(other, "push", "-q", "origin", "main")

	pulled := time.Now()
	w.git(w.notes, "pull", "-q", "--ff-only")
	head := w.head()
	waitFor(t, "index shows the pulled fact", func() bool { return strings.Contains(w.index(), "(reference-wiki.md)") })
	waitFor(t, "daemon compared with HEAD after the pull", func() bool {
		return w.status().Git.LastCheckAt.After(pulled)
	})
	if w.head() != head {
		t.Fatalf("a pull made a commit: %s", w.subjects()[0])
	}
	p.stop(t)
	w.fsck()
}

func TestRunSecondInstanceRefused(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	out, code := w.runCmd(nil, "run")
	if code != 1 {
		t.Fatalf("second instance exit code %d, want 1\n%s", code, out)
	}
	if want := fmt.Sprintf("pid %d", p.cmd.Process.Pid); !strings.Contains(out, want) || !strings.Contains(out, "already running") {
		t.Fatalf("second instance message should name the first (%s):\n%s", want, out)
	}
	p.stop(t)
}

func TestRunSIGTERMCommitsPending(t *testing.T) {
	w := newWorld(t)
	// A long debounce: the commit can only come from the shutdown flush.
	p := w.startDaemon("MEMORY_COMMIT_DEBOUNCE_MS=600000", "MEMORY_COMMIT_MAX_WAIT_MS=600000")
	w.write("user-pet.md", memoryFile("user", "pet", "Has a cat named Miso", "Miso."))
	waitFor(t, "index updated", func() bool { return strings.Contains(w.index(), "(user-pet.md)") })
	if strings.Contains(w.git(w.notes, "log", "--name-only", "--format="), "user-pet.md") {
		t.Fatal("committed before the debounce; the test cannot tell the flush apart")
	}
	p.stop(t)
	if !strings.Contains(w.git(w.notes, "log", "-1", "--name-only", "--format="), "memory/user-pet.md") {
		t.Fatalf("SIGTERM did not commit the pending change\n%s", p.output())
	}
	if st := w.status(); st.Running {
		t.Error("status still says running after exit")
	}
	w.fsck()
}

func TestStatusAndHistory(t *testing.T) {
	w := newWorld(t)
	w.write("user-name.md", memoryFile("user", "name", "Name is Ada", "Ada."))
	w.write("broken.md", "no frontmatter here\n")
	p := w.startDaemon()
	waitFor(t, "commit", func() bool { return w.status().Git.LastCommit != "" })

	out, _, code := w.runCmd2(nil, "status", "--json")
	if code != 0 {
		t.Fatalf("status: %d\n%s", code, out)
	}
	r := statusJSON(t, out)
	if !r.Running || r.Daemon == nil || r.Daemon.Index.Files != 1 {
		t.Fatalf("status: %+v", r)
	}
	if !strings.Contains(strings.Join(r.Problems, "\n"), "broken.md") {
		t.Errorf("status problems do not mention the unreadable file: %v", r.Problems)
	}
	text, _ := w.runCmd(nil, "status")
	if !strings.Contains(text, "daemon         running") || !strings.Contains(text, "broken.md") {
		t.Errorf("status text:\n%s", text)
	}
	hist, code := w.runCmd(nil, "history", "-n", "5")
	if code != 0 || !strings.Contains(hist, "memory: update") {
		t.Errorf("history (%d):\n%s", code, hist)
	}
	p.stop(t)
	out, _, _ = w.runCmd2(nil, "status", "--json")
	if statusJSON(t, out).Running {
		t.Error("status says running after stop")
	}
}

func TestCLIUsage(t *testing.T) {
	w := newWorld(t)
	for _, c := range []string{"run", "rebuild", "status", "history", "version"} {
		out, code := w.runCmd(nil, c, "--help")
		if code != 0 || !strings.Contains(out, "usage: memoryd "+c) {
			t.Errorf("%s --help: code %d\n%s", c, code, out)
		}
	}
	if _, code := w.runCmd(nil, "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if _, code := w.runCmd(nil, "history", "-n", "x"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	out, code := w.runCmd([]string{"MEMORY_COMPACT_CHURN=lots"}, "status")
	if code != 1 || !strings.Contains(out, "MEMORY_COMPACT_CHURN") {
		t.Errorf("bad env: exit %d\n%s", code, out)
	}
	out, code = w.runCmd([]string{"MEMORY_DIR=" + filepath.Join(w.home, "nope")}, "run")
	if code != 1 || !strings.Contains(out, "does not exist") {
		t.Errorf("missing folder: exit %d\n%s", code, out)
	}
	if out, code := w.runCmd(nil, "version"); code != 0 || !strings.HasPrefix(out, "memoryd ") {
		t.Errorf("version: %d %q", code, out)
	}
}

// fakeOpenCode puts an `opencode` on PATH that records its pid in the
// returned file and then hangs, as a slow `opencode debug config` does.
func fakeOpenCode(t *testing.T) (env []string, pids string) {
	t.Helper()
	bin := t.TempDir()
	pids = filepath.Join(bin, "pids")
	script := "#!/bin/sh\necho $$ >> '" + pids + "'\nexec sleep 600\n"
	if err := os.WriteFile(filepath.Join(bin, "opencode"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "MEMORY_LLM_PROVIDER="}, pids
}

// TestStartDoesNotWaitForOpenCode: with OpenCode on PATH and no provider
// or model set, the daemon watches and commits at once; asking OpenCode
// for the user's model waits until a job needs a model.
func TestStartDoesNotWaitForOpenCode(t *testing.T) {
	w := newWorld(t)
	env, _ := fakeOpenCode(t)
	p := w.startDaemon(env...)
	defer p.stop(t)
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Uses vim for everything."))
	deadline := time.Now().Add(10 * time.Second)
	for w.show("memory/user-editor.md") == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the fact was not committed within 10 s of the daemon's start\n%s", p.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOpenCodeChildDiesWithMemoryd: a memoryd killed while it waits for
// `opencode debug config` leaves no opencode running (Linux: the child has
// a parent-death signal).
func TestOpenCodeChildDiesWithMemoryd(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	w := newWorld(t)
	env, pids := fakeOpenCode(t)
	p := w.start(env, "doctor")
	var pid int
	waitFor(t, "memoryd to start opencode", func() bool {
		data, _ := os.ReadFile(pids)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return pid > 0
	})
	p.cmd.Process.Kill()
	<-p.done
	waitFor(t, fmt.Sprintf("opencode (pid %d) to end with memoryd", pid), func() bool { return !processAlive(pid) })
}

// processAlive reports whether pid runs (a zombie waiting for its reaper
// does not).
func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "pid (comm) S …": the state follows the last ')'.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}
