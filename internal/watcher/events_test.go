package watcher

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// indexLike mirrors the rules of index.Ignored closely enough for these
// tests (the index package is written in parallel and is not imported).
func indexLike(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != ".gitattributes" {
			return true
		}
	}
	base := rel[strings.LastIndex(rel, "/")+1:]
	switch {
	case base == "4913", strings.HasSuffix(base, "~"),
		strings.HasSuffix(base, ".swp"), strings.HasSuffix(base, ".swx"),
		strings.HasSuffix(base, ".tmp"),
		strings.HasSuffix(base, "___jb_tmp___"), strings.HasSuffix(base, "___jb_old___"):
		return true
	}
	return base != ".gitattributes" && !strings.HasSuffix(base, ".md")
}

// newTestLoop returns a loop watching root through a fake, as if start had run.
func newTestLoop(t *testing.T, root string, ignore func(string) bool) (*loop, *fakeFS) {
	t.Helper()
	f := newFakeFS()
	l := &loop{
		root:     root,
		ignore:   ignore,
		log:      slog.New(slog.DiscardHandler),
		interval: time.Hour,
		out:      emitter{ch: make(chan Event, 64)},
		fs:       f,
		dirs:     map[string]bool{root: true},
		periodic: time.NewTimer(time.Hour),
	}
	t.Cleanup(func() { l.periodic.Stop() })
	return l, f
}

func TestRelPath(t *testing.T) {
	root := filepath.FromSlash("/home/u/notes/memory")
	tests := []struct {
		name, rel string
		ok        bool
	}{
		{root, ".", true},
		{root + "/a.md", "a.md", true},
		{root + "/sub/b.md", "sub/b.md", true},
		{root + "x/a.md", "", false}, // sibling sharing a prefix
		{"/home/u/notes/a.md", "", false},
		{root + "/", "", false},
	}
	for _, tt := range tests {
		rel, ok := relPath(root, filepath.FromSlash(tt.name))
		if rel != tt.rel || ok != tt.ok {
			t.Errorf("relPath(%q) = %q, %v; want %q, %v", tt.name, rel, ok, tt.rel, tt.ok)
		}
	}
}

func TestHandleEventMapsAndFilters(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		op     fsnotify.Op
		name   string
		ignore func(string) bool
		want   []Event
	}{
		{fsnotify.Create, "a.md", nil, []Event{{Path: "a.md"}}},
		{fsnotify.Write, "a.md", indexLike, []Event{{Path: "a.md"}}},
		{fsnotify.Remove, "a.md", indexLike, []Event{{Path: "a.md"}}},
		{fsnotify.Rename, "a.md", indexLike, []Event{{Path: "a.md"}}},
		{fsnotify.Write, "sub/b.md", indexLike, []Event{{Path: "sub/b.md"}}},
		{fsnotify.Chmod, "a.md", nil, nil},
		{fsnotify.Chmod | fsnotify.Write, "a.md", nil, []Event{{Path: "a.md"}}},
		{0, "a.md", nil, nil},
		{fsnotify.Create, "4913", indexLike, nil},
		{fsnotify.Create, "4913", nil, []Event{{Path: "4913"}}},
		{fsnotify.Rename, "a.md~", indexLike, nil},
		{fsnotify.Create, ".a.md.swp", indexLike, nil},
		{fsnotify.Create, "sedX1a2b3", indexLike, nil},
		{fsnotify.Write, "../outside.md", nil, nil},
		{fsnotify.Write, ".", nil, nil}, // the root itself, not gone
	}
	for _, tt := range tests {
		l, _ := newTestLoop(t, root, tt.ignore)
		name := filepath.Join(root, filepath.FromSlash(tt.name))
		s, err := l.handleEvent(fsnotify.Event{Name: name, Op: tt.op})
		if s != stepContinue || err != nil {
			t.Errorf("%v %s: step %v, err %v", tt.op, tt.name, s, err)
		}
		if got := drain(l.out.ch); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%v %s (ignore=%v): got %v, want %v", tt.op, tt.name, tt.ignore != nil, got, tt.want)
		}
	}
}

// mkdirs creates root and the directories rels below it.
func mkdirs(t *testing.T, root string, rels ...string) {
	t.Helper()
	for _, rel := range append([]string{"."}, rels...) {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHandleEventNewDirectoryWatchesSubtreeAndRescans(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root, "sub/deeper/deepest", "sub/.obsidian/plugins", "elsewhere")
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(root, "sub", "link")); err != nil {
		t.Fatal(err)
	}
	l, f := newTestLoop(t, root, indexLike)
	s, err := l.handleEvent(fsnotify.Event{Name: filepath.Join(root, "sub"), Op: fsnotify.Create})
	if s != stepContinue || err != nil {
		t.Fatalf("step %v, err %v", s, err)
	}
	added, _, _ := f.snapshot()
	slices.Sort(added)
	want := []string{filepath.Join(root, "sub"), filepath.Join(root, "sub", "deeper"), filepath.Join(root, "sub", "deeper", "deepest")}
	if !slices.Equal(added, want) {
		t.Fatalf("watched %v, want %v (no hidden dirs, no links)", added, want)
	}
	for _, d := range want {
		if !l.dirs[d] {
			t.Errorf("%s not recorded as watched", d)
		}
	}
	if got := drain(l.out.ch); fmt.Sprint(got) != fmt.Sprint([]Event{{Rescan: true}}) {
		t.Fatalf("events %v, want one Rescan (the directory name itself is ignored)", got)
	}

	// Neither a hidden directory, a link to a directory nor a file is watched.
	for _, name := range []string{"sub/.obsidian", "sub/link", "gone"} {
		l.handleEvent(fsnotify.Event{Name: filepath.Join(root, filepath.FromSlash(name)), Op: fsnotify.Create})
	}
	if added2, _, _ := f.snapshot(); len(added2) != len(added) {
		t.Fatalf("watched more: %v", added2[len(added):])
	}
	if got := drain(l.out.ch); len(got) != 0 {
		t.Fatalf("events %v, want none", got)
	}
}

func TestHandleEventRemovedDirectoryForgetsItsWatches(t *testing.T) {
	root := t.TempDir()
	for _, op := range []fsnotify.Op{fsnotify.Remove, fsnotify.Rename} {
		l, f := newTestLoop(t, root, nil)
		for _, d := range []string{"sub", "sub/deeper", "subway", "other"} {
			l.dirs[filepath.Join(root, filepath.FromSlash(d))] = true
		}
		s, err := l.handleEvent(fsnotify.Event{Name: filepath.Join(root, "sub"), Op: op})
		if s != stepContinue || err != nil {
			t.Fatalf("%v: step %v, err %v", op, s, err)
		}
		_, removed, _ := f.snapshot()
		slices.Sort(removed)
		want := []string{filepath.Join(root, "sub"), filepath.Join(root, "sub", "deeper")}
		if !slices.Equal(removed, want) {
			t.Fatalf("%v: removed watches %v, want %v", op, removed, want)
		}
		if len(l.dirs) != 3 || !l.dirs[filepath.Join(root, "subway")] {
			t.Fatalf("%v: still watched %v", op, l.dirs)
		}
		got := drain(l.out.ch)
		if fmt.Sprint(got) != fmt.Sprint([]Event{{Rescan: true}, {Path: "sub"}}) {
			t.Fatalf("%v: events %v", op, got)
		}
	}
}

func TestHandleEventRootGone(t *testing.T) {
	root := t.TempDir()
	for _, op := range []fsnotify.Op{fsnotify.Remove, fsnotify.Rename} {
		l, _ := newTestLoop(t, root, nil)
		s, err := l.handleEvent(fsnotify.Event{Name: root, Op: op})
		if s != stepFail || !errors.Is(err, errRootGone) {
			t.Fatalf("%v root: step %v, err %v; want stepFail, errRootGone", op, s, err)
		}
	}
}

func TestHandleEventFailsWhenNewDirectoryCannotBeWatched(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root, "sub")
	l, f := newTestLoop(t, root, nil)
	f.addErr = func(string) error { return syscall.ENOSPC }
	s, err := l.handleEvent(fsnotify.Event{Name: filepath.Join(root, "sub"), Op: fsnotify.Create})
	if s != stepFail || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "max_user_watches") {
		t.Fatalf("step %v, err %v; want stepFail with a hint about max_user_watches", s, err)
	}
}

func TestAddTreeSkipsVanishedAndUnreadableSubdirectories(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root, "a", "b", "c")
	l, f := newTestLoop(t, root, nil)
	f.addErr = func(name string) error {
		switch filepath.Base(name) {
		case "a":
			return syscall.ENOENT
		case "b":
			return syscall.EACCES
		}
		return nil
	}
	if err := l.addTree(root); err != nil {
		t.Fatal(err)
	}
	added, _, _ := f.snapshot()
	if want := []string{root, filepath.Join(root, "c")}; !slices.Equal(added, want) {
		t.Fatalf("watched %v, want %v", added, want)
	}
	// The root itself is not optional.
	f.addErr = func(string) error { return syscall.ENOENT }
	if err := l.addTree(root); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("root vanished: err %v", err)
	}
}

func TestHandleError(t *testing.T) {
	l, _ := newTestLoop(t, t.TempDir(), nil)
	if s, _ := l.handleError(fsnotify.ErrEventOverflow); s != stepResync {
		t.Errorf("overflow: step %v, want stepResync", s)
	}
	if s, _ := l.handleError(fmt.Errorf("read: %w", fsnotify.ErrEventOverflow)); s != stepResync {
		t.Errorf("wrapped overflow: step %v, want stepResync", s)
	}
	boom := errors.New("boom")
	if s, err := l.handleError(boom); s != stepFail || !errors.Is(err, boom) {
		t.Errorf("other error: step %v, err %v; want stepFail", s, err)
	}
}

// BenchmarkHandleEvent measures the per-event cost in the goroutine that
// reads fsnotify: filter, map and deliver one write to a memory file.
func BenchmarkHandleEvent(b *testing.B) {
	root := b.TempDir()
	f := newFakeFS()
	l := &loop{
		root: root, ignore: indexLike, log: slog.New(slog.DiscardHandler),
		out: emitter{ch: make(chan Event, 1)}, fs: f, dirs: map[string]bool{root: true},
	}
	ev := fsnotify.Event{Name: filepath.Join(root, "feedback-prefers-tabs.md"), Op: fsnotify.Write}
	for b.Loop() {
		l.handleEvent(ev)
		<-l.out.ch
	}
}

func TestFlatWatchesOnlyTheRoot(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root, "snapshot/deep", "storage")
	l, f := newTestLoop(t, root, nil)
	l.flat = true
	l.dirs = map[string]bool{}
	if err := l.addTree(root); err != nil {
		t.Fatal(err)
	}
	if _, err := l.handleEvent(fsnotify.Event{Name: filepath.Join(root, "snapshot"), Op: fsnotify.Create}); err != nil {
		t.Fatal(err)
	}
	added, _, _ := f.snapshot()
	if !slices.Equal(added, []string{root}) {
		t.Fatalf("flat watcher watched %v, want only the root", added)
	}
	if got := drain(l.out.ch); fmt.Sprint(got) != fmt.Sprint([]Event{{Path: "snapshot"}}) {
		t.Fatalf("events %v, want the new entry reported and no Rescan", got)
	}
}
