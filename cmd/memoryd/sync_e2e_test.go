package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/gitsync"
)

// syncEnv turns sync on with a short interval.
var syncEnv = []string{"MEMORY_SYNC_ENABLED=1", "MEMORY_SYNC_INTERVAL_MS=400"}

// syncWorlds makes two worlds whose notes repositories are clones of one
// bare remote on disk, each with its own home and state folder.
func syncWorlds(t testing.TB) (remote string, a, b *world) {
	t.Helper()
	a = newWorld(t)
	remote = filepath.Join(t.TempDir(), "remote.git")
	a.git(a.home, "init", "-q", "--bare", remote)
	a.write("user-name.md", memoryFile("user", "name", "the user's name", "Ada"))
	a.git(a.notes, "add", "-A")
	a.git(a.notes, "commit", "-q", "-m", "first fact")
	a.git(a.notes, "remote", "add", "origin", remote)
	a.git(a.notes, "push", "-q", "-u", "origin", "main")
	b = newWorld(t)
	if err := os.RemoveAll(b.notes); err != nil {
		t.Fatal(err)
	}
	b.git(b.home, "clone", "-q", remote, b.notes)
	return remote, a, b
}

// read is a file of the memory folder, "" when absent.
func (w *world) read(name string) string {
	data, _ := os.ReadFile(filepath.Join(w.mem, name))
	return string(data)
}

// gitOK runs git and reports whether it succeeded, with its output.
func (w *world) gitOK(dir string, args ...string) (string, bool) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, w.env
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// noMarkers fails when a file of the notes repository holds a conflict marker.
func (w *world) noMarkers() {
	w.t.Helper()
	filepath.Walk(w.notes, func(p string, fi os.FileInfo, err error) error {
		if fi != nil && fi.IsDir() && fi.Name() == ".git" {
			return filepath.SkipDir
		}
		if fi != nil && fi.Mode().IsRegular() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), "<<<<<<<") {
				w.t.Errorf("conflict markers in %s:\n%s", p, data)
			}
		}
		return nil
	})
}

// tipWatcher records every tip the remote's main branch had while a test ran.
type tipWatcher struct {
	mu   sync.Mutex
	tips []string
	stop chan struct{}
	done chan struct{}
}

func watchTips(w *world, remote string) *tipWatcher {
	tw := &tipWatcher{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(tw.done)
		for {
			if out, ok := w.gitOK(remote, "rev-parse", "--verify", "-q", "refs/heads/main"); ok {
				tip := strings.TrimSpace(out)
				tw.mu.Lock()
				if n := len(tw.tips); n == 0 || tw.tips[n-1] != tip {
					tw.tips = append(tw.tips, tip)
				}
				tw.mu.Unlock()
			}
			select {
			case <-tw.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return tw
}

// checkNothingForced stops the watcher and fails unless every tip seen is
// an ancestor of the last one: nothing was forced, no pushed commit was
// rewritten.
func (tw *tipWatcher) checkNothingForced(t *testing.T, w *world, remote string) {
	t.Helper()
	close(tw.stop)
	<-tw.done
	last := w.git(remote, "rev-parse", "refs/heads/main")
	for _, tip := range tw.tips {
		if _, ok := w.gitOK(remote, "merge-base", "--is-ancestor", tip, last); !ok {
			t.Errorf("remote tip %s is not an ancestor of the last tip %s: something was forced", tip, last)
		}
	}
	if len(tw.tips) < 2 {
		t.Errorf("the remote never moved: %v", tw.tips)
	}
}

func TestSyncFactGoesBothWays(t *testing.T) {
	remote, a, b := syncWorlds(t)
	tips := watchTips(a, remote)
	a.startDaemon(syncEnv...)
	b.startDaemon(syncEnv...)
	waitFor(t, "B pulls A's first fact", func() bool { return strings.Contains(b.read("user-name.md"), "Ada") })

	a.write("user-editor.md", memoryFile("user", "editor", "the user's editor", "vim"))
	waitFor(t, "A's new fact on B", func() bool { return strings.Contains(b.read("user-editor.md"), "vim") })
	waitFor(t, "B's index lists it", func() bool { return strings.Contains(b.index(), "user-editor.md") })

	b.write("user-shell.md", memoryFile("user", "shell", "the user's shell", "zsh"))
	waitFor(t, "B's new fact on A", func() bool { return strings.Contains(a.read("user-shell.md"), "zsh") })
	waitFor(t, "one history on both", func() bool {
		return a.head() == b.head() && a.head() == a.git(remote, "rev-parse", "main")
	})
	st := b.status().Sync
	if !st.Enabled || st.Remote != "origin/main" || st.LastSyncAt.IsZero() {
		t.Fatalf("B's sync status: %+v", st)
	}
	out, code := b.runCmd(nil, "status")
	if code != 0 || !strings.Contains(out, "sync           origin/main: 0 ahead, 0 behind") {
		t.Fatalf("status (%d):\n%s", code, out)
	}
	tips.checkNothingForced(t, a, remote)
	a.noMarkers()
	b.noMarkers()
}

func TestSyncSameFactEditedOnBothWhileRemoteAway(t *testing.T) {
	remote, a, b := syncWorlds(t)
	tips := watchTips(a, remote)
	a.startDaemon(syncEnv...)
	b.startDaemon(syncEnv...)
	waitFor(t, "both in step", func() bool {
		return strings.Contains(b.read("user-name.md"), "Ada") && a.head() == b.head()
	})

	// The remote goes away; both machines edit the same fact.
	if err := os.Rename(remote, remote+".away"); err != nil {
		t.Fatal(err)
	}
	a.write("user-name.md", memoryFile("user", "name", "the user's name", "Ada Lovelace"))
	b.write("user-name.md", memoryFile("user", "name", "the user's name", "Ada King"))
	b.write("user-shell.md", memoryFile("user", "shell", "the user's shell", "zsh"))
	for _, w := range []*world{a, b} {
		waitFor(t, "offline with a commit queued", func() bool {
			st := w.status().Sync
			return !st.OfflineSince.IsZero() && st.Ahead >= 1
		})
	}
	out, _ := a.runCmd(nil, "status")
	if !strings.Contains(out, "offline since") || !strings.Contains(out, "commit(s) ahead") {
		t.Fatalf("status while offline:\n%s", out)
	}

	// Back: the queued commits go out and converge.
	if err := os.Rename(remote+".away", remote); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "one history on both", func() bool {
		h := a.head()
		return h == b.head() && h == a.git(remote, "rev-parse", "main") &&
			a.status().Sync.Ahead == 0 && b.status().Sync.Ahead == 0
	})
	texts := []string{a.read("user-name.md"), readInbox(a)}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, "Ada Lovelace") || !strings.Contains(joined, "Ada King") {
		t.Fatalf("a text was lost: fact %q, inbox %q", texts[0], texts[1])
	}
	for _, w := range []*world{a, b} {
		if got := inboxFiles(w); len(got) != 1 || got[0] != "user-name.md" {
			t.Fatalf("%s: want one review item, got %v", w.notes, got)
		}
		if w.read("user-name.md") != a.read("user-name.md") || !strings.Contains(w.read("user-shell.md"), "zsh") {
			t.Fatalf("%s did not converge", w.notes)
		}
		w.noMarkers()
		w.fsck()
	}
	// The machine that merged counts its review item.
	waitFor(t, "a review item in status", func() bool {
		return len(a.status().Sync.Review)+len(b.status().Sync.Review) == 1
	})
	// Review: accept keeps this machine's version, and it reaches the other.
	mine := readInbox(a)
	if out, code := a.runCmd(nil, "review", "accept", "user-name.md"); code != 0 {
		t.Fatalf("review accept (%d):\n%s", code, out)
	}
	if a.read("user-name.md") != mine || len(inboxFiles(a)) != 0 {
		t.Fatalf("accept did not keep the inbox version: %q", a.read("user-name.md"))
	}
	waitFor(t, "the accepted version on B", func() bool { return b.read("user-name.md") == mine && len(inboxFiles(b)) == 0 })
	tips.checkNothingForced(t, a, remote)
}

func inboxFiles(w *world) []string {
	entries, _ := os.ReadDir(filepath.Join(w.mem, "_inbox"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func readInbox(w *world) string {
	var b strings.Builder
	for _, n := range inboxFiles(w) {
		b.WriteString(w.read("_inbox/" + n))
	}
	return b.String()
}

func TestSyncConflictOutsideMemoryPauses(t *testing.T) {
	remote, a, b := syncWorlds(t)
	a.startDaemon(syncEnv...)
	b.startDaemon(syncEnv...)
	waitFor(t, "both in step", func() bool {
		return strings.Contains(b.read("user-name.md"), "Ada") && a.head() == b.head()
	})
	os.Rename(remote, remote+".away")
	a.write("README.md", "# notes, as A has them\n", a.notes)
	a.git(a.notes, "commit", "-q", "-am", "readme on A")
	b.write("README.md", "# notes, as B has them\n", b.notes)
	b.git(b.notes, "commit", "-q", "-am", "readme on B")
	os.Rename(remote+".away", remote)

	// One of them pushes first; the other pauses.
	var paused, first *world
	waitFor(t, "one machine paused on README.md", func() bool {
		for _, pair := range [][2]*world{{a, b}, {b, a}} {
			if st := pair[0].status().Sync; st.Conflict == "README.md" {
				paused, first = pair[0], pair[1]
				return true
			}
		}
		return false
	})
	_ = first
	before := paused.head()
	st := paused.status().Sync
	if !strings.Contains(st.Paused, "git pull") || st.Ahead < 1 || st.Behind < 1 {
		t.Fatalf("paused status: %+v", st)
	}
	out, _ := paused.runCmd(nil, "status")
	if !strings.Contains(out, "sync paused: README.md conflicts") || !strings.Contains(out, "git pull") {
		t.Fatalf("status:\n%s", out)
	}
	// Nothing changed, and it stays so over more rounds.
	next := st.NextAt
	waitFor(t, "two more rounds", func() bool {
		n := paused.status().Sync.NextAt
		if n.After(next) && next != st.NextAt {
			return true
		}
		if n.After(next) {
			next = n
		}
		return false
	})
	if paused.head() != before {
		t.Fatal("a paused sync moved HEAD")
	}
	if got, _ := paused.gitOK(paused.notes, "status", "--porcelain", "--untracked-files=no"); strings.TrimSpace(got) != "" {
		t.Fatalf("a paused sync left changes: %s", got)
	}
	paused.noMarkers()
	out, code := paused.runCmd(nil, "sync")
	if code == 0 || !strings.Contains(out, "README.md") {
		t.Fatalf("memoryd sync while paused (%d):\n%s", code, out)
	}
}

func TestSyncPersonsOwnPullAndPush(t *testing.T) {
	remote, a, b := syncWorlds(t)
	tips := watchTips(a, remote)
	a.startDaemon(syncEnv...)
	b.startDaemon(syncEnv...)
	waitFor(t, "both in step", func() bool {
		return strings.Contains(b.read("user-name.md"), "Ada") && a.head() == b.head()
	})
	for i := range 3 {
		b.write("user-fact"+string(rune('a'+i))+".md", memoryFile("user", "fact"+string(rune('a'+i)), "a fact", "from B"))
		a.write("todo.md", "- item "+string(rune('a'+i))+"\n", a.notes)
		a.git(a.notes, "add", "todo.md")
		a.git(a.notes, "commit", "-q", "-m", "todo")
		personPullPush(t, a)
	}
	waitFor(t, "one history on both", func() bool {
		h := a.head()
		return h == b.head() && h == a.git(remote, "rev-parse", "main") && strings.Contains(b.read("../todo.md"), "item c")
	})
	for _, w := range []*world{a, b} {
		w.noMarkers()
		w.fsck()
	}
	tips.checkNothingForced(t, a, remote)
}

// personPullPush is what a person does: git pull --rebase, then git push,
// again when the push lost a race with a daemon's push to the same remote
// (rejected, or the remote's ref lock taken at that moment), as git says to.
func personPullPush(t *testing.T, a *world) {
	t.Helper()
	var out string
	for range 5 {
		var ok bool
		if out, ok = a.gitOK(a.notes, "pull", "-q", "--rebase"); !ok {
			t.Fatalf("the person's git pull --rebase failed:\n%s", out)
		}
		if out, ok = a.gitOK(a.notes, "push", "-q"); ok {
			return
		}
		if !strings.Contains(out, "rejected") && !strings.Contains(out, "cannot lock ref") {
			break
		}
	}
	t.Fatalf("the person's git push failed:\n%s", out)
}

func TestSyncCommand(t *testing.T) {
	_, a, b := syncWorlds(t)
	b.write("user-shell.md", memoryFile("user", "shell", "the user's shell", "zsh"))
	b.git(b.notes, "add", "-A")
	b.git(b.notes, "commit", "-q", "-m", "shell")
	out, code := b.runCmd(nil, "sync")
	if code != 0 || !strings.Contains(out, "pushed         1 commit") || !strings.Contains(out, "sync.enabled is off") {
		t.Fatalf("sync on B (%d):\n%s", code, out)
	}
	stdout, _, code := a.runCmd2(nil, "sync", "--json")
	rep := syncReportOf(t, stdout)
	if code != 0 || rep.Pulled != 1 || rep.Target != "origin/main" || !strings.Contains(a.read("user-shell.md"), "zsh") {
		t.Fatalf("sync --json on A (%d): %s", code, stdout)
	}
}

func syncReportOf(t *testing.T, s string) gitsync.Report {
	t.Helper()
	var r gitsync.Report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("sync --json: %v\n%s", err, s)
	}
	return r
}
