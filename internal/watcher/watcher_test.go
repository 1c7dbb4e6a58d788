package watcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// These tests run the real fsnotify watcher on real temporary folders and
// change them with real tools. They wait with a deadline, never a sleep.

func TestLiveCreateWriteRenameDelete(t *testing.T) {
	lv := startLive(t, t.TempDir(), indexLike)

	evs := lv.during(func() { lv.write("a.md", "one\n") })
	mustReport(t, evs, "a.md")

	evs = lv.during(func() { // write in place
		f, err := os.OpenFile(lv.path("a.md"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(f, "two")
		f.Close()
	})
	mustReport(t, evs, "a.md")

	evs = lv.during(func() { // rename over from a temporary file
		lv.write("a.md.tmp", "three\n")
		if err := os.Rename(lv.path("a.md.tmp"), lv.path("a.md")); err != nil {
			t.Fatal(err)
		}
	})
	mustReport(t, evs, "a.md")
	mustNotReport(t, evs, func(rel string) bool { return rel == "a.md.tmp" })
	if !lv.askedAbout("a.md.tmp") {
		t.Error("the temporary file was never seen, so the filter was not tested")
	}

	evs = lv.during(func() {
		if err := os.Remove(lv.path("a.md")); err != nil {
			t.Fatal(err)
		}
	})
	mustReport(t, evs, "a.md")
	evs = lv.during(func() { lv.write("a.md", "four\n") })
	mustReport(t, evs, "a.md")

	evs = lv.during(func() { // attributes only
		if err := os.Chmod(lv.path("a.md"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	mustNotReport(t, evs, func(string) bool { return true })
}

func TestLiveVim(t *testing.T) {
	need(t, "vim")
	// backupskip= because vim never makes backups of files under /tmp,
	// where t.TempDir usually is.
	for _, tt := range []struct {
		name string
		set  string
		temp []string // leftovers vim creates on the way
	}{
		// The brief's invocation: rename the original to note.md~, keep it.
		{"backupcopy=no", "set backupskip= backup writebackup backupcopy=no", []string{"note.md~"}},
		// Vim's defaults: probe with 4913, rename to note.md~, delete it after the write.
		{"defaults", "set nocompatible backupskip=", []string{"4913", "note.md~"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lv := startLive(t, t.TempDir(), indexLike)
			lv.during(func() { lv.write("note.md", "aaa\n") })
			evs := lv.during(func() {
				run(t, lv.dir, "vim", "-es", "-u", "NONE", "-c", tt.set, "-c", "%s/a/b/", "-c", "wq", "note.md")
			})
			mustReport(t, evs, "note.md")
			leftovers := append([]string{".note.md.swp"}, tt.temp...)
			for _, name := range leftovers {
				if !lv.askedAbout(name) {
					t.Errorf("vim did not create %s here; the test no longer checks its filtering", name)
				}
			}
			mustNotReport(t, evs, func(rel string) bool { return rel != "note.md" })
			if data, _ := os.ReadFile(lv.path("note.md")); string(data) != "baa\n" {
				t.Errorf("vim wrote %q", data)
			}
		})
	}
}

func TestLiveSedInPlace(t *testing.T) {
	need(t, "sed")
	lv := startLive(t, t.TempDir(), indexLike)
	lv.during(func() { lv.write("note.md", "aaa\n") })
	evs := lv.during(func() { run(t, lv.dir, "sed", "-i", "s/a/b/", "note.md") })
	mustReport(t, evs, "note.md")
	mustNotReport(t, evs, func(rel string) bool { return rel != "note.md" })
	lv.mu.Lock()
	sawTemp := strings.Contains(strings.Join(lv.asked, " "), " sed")
	lv.mu.Unlock()
	if !sawTemp {
		t.Errorf("no temporary sed file seen: asked about %v", lv.asked)
	}
}

func TestLiveGitCheckoutReplacesManyFiles(t *testing.T) {
	need(t, "git")
	repo := t.TempDir()
	git := func(args ...string) { t.Helper(); run(t, repo, "git", args...) }
	git("init", "-q", "-b", "main")
	git("config", "user.email", "t@example.com")
	git("config", "user.name", "T")
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		write(fmt.Sprintf("f%02d.md", i), "main\n")
	}
	git("add", "-A")
	git("commit", "-q", "-m", "main")
	git("checkout", "-q", "-b", "other")
	var changed []string
	for i := range 40 {
		name := fmt.Sprintf("f%02d.md", i)
		switch {
		case i < 20:
			write(name, "other\n")
		case i < 30:
			git("rm", "-q", name)
		default:
			continue
		}
		changed = append(changed, name)
	}
	for i := range 10 {
		name := fmt.Sprintf("g%02d.md", i)
		write(name, "new\n")
		changed = append(changed, name)
		write(fmt.Sprintf("archive/h%02d.md", i), "archived\n")
	}
	git("add", "-A")
	git("commit", "-q", "-m", "other")
	git("checkout", "-q", "main")

	// The memory folder is the repository root: .git must not be watched.
	lv := startLive(t, repo, nil)
	evs := lv.during(func() { git("checkout", "-q", "other") })
	mustReport(t, evs, changed...)
	if !hasRescan(evs) {
		t.Errorf("no Rescan for the new archive directory; got %v", evs)
	}
	mustNotReport(t, evs, func(rel string) bool { return strings.HasPrefix(rel, ".git/") })

	evs = lv.during(func() { write("archive/new.md", "x\n") })
	mustReport(t, evs, "archive/new.md")
	evs = lv.during(func() { git("checkout", "-q", "main") })
	mustReport(t, evs, changed...)
	mustNotReport(t, evs, func(rel string) bool { return strings.HasPrefix(rel, ".git/") })
}

func TestLiveSubdirectories(t *testing.T) {
	lv := startLive(t, t.TempDir(), nil)

	evs := lv.during(func() {
		mkdirs(t, lv.dir, "sub/deeper")
		lv.write("sub/deeper/a.md", "x") // likely before the watch exists
	})
	if !hasRescan(evs) {
		t.Errorf("no Rescan for a new directory; got %v", evs)
	}
	evs = lv.during(func() { lv.write("sub/deeper/b.md", "x") })
	mustReport(t, evs, "sub/deeper/b.md")

	evs = lv.during(func() {
		mkdirs(t, lv.dir, ".hidden")
		lv.write(".hidden/x.md", "x")
	})
	mustNotReport(t, evs, func(rel string) bool { return strings.HasPrefix(rel, ".hidden/") })

	// A renamed directory is watched under its new name only.
	evs = lv.during(func() {
		if err := os.Rename(lv.path("sub"), lv.path("moved")); err != nil {
			t.Fatal(err)
		}
	})
	if !hasRescan(evs) {
		t.Errorf("no Rescan for a renamed directory; got %v", evs)
	}
	evs = lv.during(func() { lv.write("moved/deeper/c.md", "x") })
	mustReport(t, evs, "moved/deeper/c.md")
	mustNotReport(t, evs, func(rel string) bool { return strings.HasPrefix(rel, "sub/") })

	// A directory moved out of the folder is not watched any more.
	outside := filepath.Join(t.TempDir(), "outside")
	evs = lv.during(func() {
		if err := os.Rename(lv.path("moved"), outside); err != nil {
			t.Fatal(err)
		}
	})
	if !hasRescan(evs) {
		t.Errorf("no Rescan for a directory moved away; got %v", evs)
	}
	evs = lv.during(func() {
		if err := os.WriteFile(filepath.Join(outside, "deeper", "d.md"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	mustNotReport(t, evs, func(string) bool { return true })
}

func TestLiveRootRemovedOrRenamedAndBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	mkdirs(t, dir)
	lv := startLive(t, dir, nil)
	lv.during(func() { lv.write("a.md", "x") })

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	lv.waitRescan()
	mkdirs(t, dir, "sub")
	lv.write("sub/a.md", "x")
	lv.waitRescan() // watching again
	evs := lv.during(func() { lv.write("sub/b.md", "x") })
	mustReport(t, evs, "sub/b.md")

	old := dir + ".old"
	lv.seen = nil
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	lv.waitRescan()
	if err := os.WriteFile(filepath.Join(old, "sub", "c.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(old, dir); err != nil {
		t.Fatal(err)
	}
	lv.waitRescan()
	mustNotReport(t, lv.seen, func(string) bool { return true }) // nothing from the renamed-away folder
	evs = lv.during(func() { lv.write("sub/d.md", "x") })
	mustReport(t, evs, "sub/d.md")
}

func TestLiveSlowConsumerGetsRescan(t *testing.T) {
	lv := startLive(t, t.TempDir(), nil)
	// Nobody reads Events now. Create files until the buffer is full.
	timeout := time.After(deadline)
	created := 0
	for len(lv.w.Events()) < cap(lv.w.Events()) {
		select {
		case <-timeout:
			t.Fatalf("buffer holds %d events after %d files", len(lv.w.Events()), created)
		default:
		}
		lv.write(fmt.Sprintf("f%04d.md", created), "")
		created++
	}
	for i := range 50 { // these collapse into the owed Rescan
		lv.write(fmt.Sprintf("late%02d.md", i), "")
	}
	// Every event buffered so far names a file; then, once there is room,
	// the Rescan that covers the rest (created before it was sent).
	for i := range cap(lv.w.Events()) {
		if ev := <-lv.w.Events(); ev.Rescan || !strings.HasPrefix(ev.Path, "f") {
			t.Fatalf("buffered event %d: %v", i, ev)
		}
	}
	lv.waitRescan()
	evs := lv.during(func() { lv.write("after.md", "x") })
	mustReport(t, evs, "after.md")
}

func TestLiveRunReturnsOnCancelWithoutLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, exists := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "memory")
		if exists {
			mkdirs(t, dir, "a/b", "c")
		}
		w := New(Options{Dir: dir})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		if exists {
			select {
			case ev := <-w.Events():
				if !ev.Rescan {
					t.Fatalf("first event %v, want Rescan", ev)
				}
			case <-time.After(deadline):
				t.Fatal("no Rescan at start")
			}
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
		case <-time.After(deadline):
			t.Fatal("Run did not return after cancel")
		}
	}
	// fsnotify's reading goroutine must be gone too.
	limit := time.Now().Add(deadline)
	for runtime.NumGoroutine() > before {
		if time.Now().After(limit) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
	}
}

func TestLiveRelativeDir(t *testing.T) {
	dir := t.TempDir()
	mkdirs(t, dir, "sub")
	t.Chdir(dir)
	lv := startLive(t, ".", nil)
	lv.dir = dir // for the helpers that write files
	evs := lv.during(func() { lv.write("sub/a.md", "x") })
	mustReport(t, evs, "sub/a.md")
}
