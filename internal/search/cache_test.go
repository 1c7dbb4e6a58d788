package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

var tabsFact = fact{"feedback", "prefers-tabs", "Prefers tabs", "", "Tabs, not spaces."}

func TestNewIndexBuildsOnFirstSearch(t *testing.T) {
	f := newFolder(t, tabsFact)
	x := f.open()
	q := Query{Words: "tabs"}
	wantFiles(t, q, find(t, x, q), tabsFact.file())
	if fi, err := os.Stat(f.dbPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("index file: %v, %v; want mode 0600", fi, err)
	}
}

func TestFreshDoesNothingWhenNothingChanged(t *testing.T) {
	f := newFolder(t, tabsFact)
	x := f.open()
	ctx := context.Background()
	for range 3 {
		if err := x.Fresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if x.scans != 1 {
		t.Errorf("%d scans of the folder, want 1", x.scans)
	}
	y := f.open() // another process
	if err := y.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	if y.scans != 0 {
		t.Errorf("another Index scanned the folder %d times, want 0", y.scans)
	}
}

// TestFreshAfterFilesChanged is a git pull while no daemon ran: files
// added, changed, deleted and moved into a subfolder; Fresh catches up.
func TestFreshAfterFilesChanged(t *testing.T) {
	f := newFolder(t, tabsFact,
		fact{"user", "editor", "Editor", "", "Uses vim."},
		fact{"user", "shell", "Shell", "", "Uses zsh."},
	)
	x := f.open()
	ctx := context.Background()
	if err := x.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	x.Close()

	f.write(fact{"user", "editor", "Editor", "", "Uses emacs now."})
	f.remove("user-shell.md")
	f.write(fact{"user", "browser", "Browser", "", "Uses firefox."})
	f.remove(tabsFact.file())
	f.writeFile("sub/"+tabsFact.file(), tabsFact.content())

	y := f.open()
	if err := y.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		words string
		want  []string
	}{
		{"vim", nil}, {"emacs", []string{"user-editor.md"}}, {"zsh", nil},
		{"firefox", []string{"user-browser.md"}}, {"tabs", []string{"sub/" + tabsFact.file()}},
	} {
		q := Query{Words: c.words}
		wantFiles(t, q, find(t, y, q), c.want...)
	}
}

// TestFreshSeesSameSizeRewrite changes a file in place keeping its size and
// modification time, as a checkout of a tool preserving times might.
func TestFreshSeesSameSizeRewrite(t *testing.T) {
	f := newFolder(t, fact{"user", "editor", "Editor", "", "Uses vim."})
	x := f.open()
	ctx := context.Background()
	if err := x.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.memoryDir, "user-editor.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f.write(fact{"user", "editor", "Editor", "", "Uses vi!."})
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := x.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	q := Query{Words: "vi"}
	wantFiles(t, q, find(t, x, q), "user-editor.md")
}

func TestSync(t *testing.T) {
	f := newFolder(t, tabsFact)
	store := index.NewStore(f.memoryDir)
	if err := store.Scan(); err != nil {
		t.Fatal(err)
	}
	x := f.open()
	sync := func(rel string) {
		t.Helper()
		if err := store.Refresh(rel); err != nil {
			t.Fatal(err)
		}
		if err := x.Sync(context.Background(), store.Snapshot()); err != nil {
			t.Fatalf("Sync: %v", err)
		}
	}
	sync("")
	check := func(words string, want ...string) {
		t.Helper()
		q := Query{Words: words, All: true}
		wantFiles(t, q, find(t, x, q), want...)
	}
	check("tabs", tabsFact.file())

	added := f.write(fact{"project", "deploy", "Deploys", "memoryd", "Deploy with make release."})
	sync(added)
	check("release", added)

	f.write(fact{"project", "deploy", "Deploys", "memoryd", "Deploy with goreleaser."})
	sync(added)
	check("release")
	check("goreleaser", added)

	f.remove(tabsFact.file())
	sync(tabsFact.file())
	check("tabs")

	f.writeFile("broken.md", "no frontmatter here, tabs\n")
	sync("broken.md")
	check("tabs")

	if x.scans != 0 {
		t.Errorf("Search scanned the folder %d times after Syncs, want 0", x.scans)
	}
	y := f.open() // a command in another process finds the index fresh
	if err := y.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if y.scans != 0 {
		t.Errorf("Fresh after Sync scanned the folder %d times, want 0", y.scans)
	}
}

// TestSyncOfAnOldSnapshot: a file changed after the snapshot was taken. The
// index cannot know what it holds, so Fresh must rebuild.
func TestSyncOfAnOldSnapshot(t *testing.T) {
	f := newFolder(t, tabsFact)
	snap := f.snapshot()
	f.write(fact{"user", "editor", "Editor", "", "Uses vim."})
	x := f.open()
	if err := x.Sync(context.Background(), snap); err != nil {
		t.Fatal(err)
	}
	if err := x.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if x.scans != 1 {
		t.Errorf("%d scans, want 1", x.scans)
	}
	q := Query{Words: "vim"}
	wantFiles(t, q, find(t, x, q), "user-editor.md")
}

func TestSyncReindexesAMemoryWithoutHash(t *testing.T) {
	f := newFolder(t)
	x := f.open()
	// A writer that just wrote the file syncs the memory it made.
	m := index.NewMemory("user", "editor", "Editor", "Uses vim.")
	f.writeFile(m.File, string(m.Format()))
	if err := x.Sync(context.Background(), index.Snapshot{Memories: []*index.Memory{m, m}}); err != nil {
		t.Fatal(err)
	}
	m2 := index.NewMemory("user", "editor", "Editor", "Uses emacs.")
	f.writeFile(m2.File, string(m2.Format()))
	if err := x.Sync(context.Background(), index.Snapshot{Memories: []*index.Memory{m2}}); err != nil {
		t.Fatal(err)
	}
	if x.scans != 0 {
		t.Errorf("%d scans, want 0", x.scans)
	}
	q := Query{Words: "emacs"}
	wantFiles(t, q, find(t, x, q), "user-editor.md")
}

// TestSyncAfterAnotherProcessWrote: two writers take turns; each sees what
// the other committed, so the index always matches the last snapshot.
func TestSyncAfterAnotherProcessWrote(t *testing.T) {
	f := newFolder(t, tabsFact)
	x, y := f.open(), f.open()
	editor := fact{"user", "editor", "Editor", "", "Uses vim."}
	check := func(words string, want ...string) {
		t.Helper()
		q := Query{Words: words}
		wantFiles(t, q, find(t, f.open(), q), want...)
	}
	for i, by := range []*Index{x, y, x, y, y, x, x} {
		var vim []string
		if i%2 == 1 {
			vim = []string{f.write(editor)}
		} else if _, err := os.Stat(filepath.Join(f.memoryDir, editor.file())); err == nil {
			f.remove(editor.file())
		}
		if err := by.Sync(context.Background(), f.snapshot()); err != nil {
			t.Fatal(err)
		}
		check("vim", vim...)
		check("tabs", tabsFact.file())
	}
	if x.scans+y.scans != 0 {
		t.Errorf("%d scans, want 0", x.scans+y.scans)
	}
	checkIntegrity(t, f.dbPath())
}

// TestCallsFromManyGoroutines: one Index shared by a syncing goroutine and
// searching ones (run with -race).
func TestCallsFromManyGoroutines(t *testing.T) {
	f := newFolder(t, tabsFact)
	x := f.open()
	store := index.NewStore(f.memoryDir)
	if err := store.Scan(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for range 20 {
				hits, err := x.Search(ctx, Query{Words: "tabs"})
				if err != nil || len(hits) != 1 {
					t.Errorf("Search: %v, %v", hits, err)
					return
				}
			}
		})
	}
	for i := range 20 {
		rel := f.write(fact{"user", "editor", "Editor", "", fmt.Sprintf("Uses vim %d.", i)})
		if err := store.Refresh(rel); err != nil {
			t.Fatal(err)
		}
		if err := x.Sync(ctx, store.Snapshot()); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}

// TestFreshSearch: a command's search answers from a fresh index without
// scanning the folder, and from the files when they changed while no
// daemon synced them (a pull: a fact added, one changed), or when there was
// no index at all; while a daemon runs, from the index it keeps.
func TestFreshSearch(t *testing.T) {
	f := newFolder(t, tabsFact, fact{"user", "editor", "Editor", "", "Uses vim."})
	ctx := context.Background()
	search := func(x *Index, words string, want ...string) {
		t.Helper()
		q := Query{Words: words}
		hits, err := x.FreshSearch(ctx, q)
		if err != nil {
			t.Fatalf("FreshSearch(%q): %v", words, err)
		}
		wantFiles(t, q, files(hits), want...)
	}
	x := f.open()
	search(x, "vim", "user-editor.md")
	if x.scans != 1 {
		t.Errorf("a new index: %d scans, want 1", x.scans)
	}
	y := f.open()
	search(y, "tabs", tabsFact.file())
	if y.scans != 0 {
		t.Errorf("a fresh index: %d scans, want 0", y.scans)
	}
	f.write(fact{"user", "editor", "Editor", "", "Uses emacs."})
	f.write(fact{"user", "shell", "Shell", "", "Uses zsh with vim keys."})
	z := f.open()
	search(z, "vim", "user-shell.md")
	if z.scans != 1 {
		t.Errorf("after files changed: %d scans, want 1", z.scans)
	}
	// While a daemon holds the folder, it keeps the index in step: the
	// index answers alone, without a look at the folder.
	lock, err := state.TryLock(f.stateDir, state.DaemonLock, "test daemon")
	if err != nil {
		t.Fatal(err)
	}
	f.write(fact{"user", "browser", "Browser", "", "Uses firefox."})
	d := f.open()
	search(d, "firefox") // not synced yet: the daemon would have
	if d.scans != 0 {
		t.Errorf("with a daemon running: %d scans, want 0", d.scans)
	}
	lock.Unlock()
	search(d, "firefox", "user-browser.md")
	if _, err := z.FreshSearch(ctx, Query{Words: " - "}); !errors.Is(err, ErrNoWords) {
		t.Errorf("FreshSearch of no words: %v, want ErrNoWords", err)
	}
}

// TestFind: a command's one search opens the index, answers as the files
// are, and closes it.
func TestFind(t *testing.T) {
	f := newFolder(t, tabsFact)
	ctx := context.Background()
	for _, c := range []struct {
		change func()
		words  string
		want   []string
	}{
		{func() {}, "tabs", []string{tabsFact.file()}}, // no index yet
		{func() { f.write(fact{"user", "editor", "Editor", "", "Uses vim."}) }, "vim", []string{"user-editor.md"}},
		{func() { f.remove("user-editor.md") }, "vim", nil},
	} {
		c.change()
		q := Query{Words: c.words}
		hits, err := Find(ctx, f.stateDir, f.memoryDir, q)
		if err != nil {
			t.Fatalf("Find(%q): %v", c.words, err)
		}
		wantFiles(t, q, files(hits), c.want...)
	}
}

// TestSumStamps: a fingerprint does not depend on the order the files come
// in, and changes with any file's stamp.
func TestSumStamps(t *testing.T) {
	var list []index.FileStamp
	for i := range 5000 {
		list = append(list, index.FileStamp{File: fmt.Sprintf("user-%d.md", i), Stamp: index.Stamp{Size: int64(i), Mtime: int64(i) * 7, Ino: uint64(i)}})
	}
	sum := sumStamps(list)
	shuffled := slices.Clone(list)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if got := sumStamps(shuffled); got != sum {
		t.Errorf("shuffled: %s, want %s", got, sum)
	}
	shuffled[1234].Ctime++
	if sumStamps(shuffled) == sum {
		t.Error("a changed ctime left the fingerprint as it was")
	}
	if sumStamps(list[:4999]) == sum {
		t.Error("a file less left the fingerprint as it was")
	}
}

// TestUpdate: a command that wrote brings an existing index up to the
// folder, fingerprint and all, so that neither a daemon's index nor the
// next command's check misses or re-scans the change; without an index it
// makes none.
func TestUpdate(t *testing.T) {
	f := newFolder(t, tabsFact)
	ctx := context.Background()
	if err := Update(ctx, f.stateDir, f.memoryDir, f.snapshot()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(f.dbPath()); err == nil {
		t.Fatal("Update made a search index where there was none")
	}
	first := f.open()
	find(t, first, Query{Words: "tabs"}) // builds the index
	first.Close()
	f.write(fact{"user", "shell", "Shell", "", "Uses fish."})
	if err := Update(ctx, f.stateDir, f.memoryDir, f.snapshot()); err != nil {
		t.Fatal(err)
	}
	x := f.open()
	if got := find(t, x, Query{Words: "fish"}); !slices.Equal(got, []string{"user-shell.md"}) {
		t.Fatalf("after Update: %q", got)
	}
	if err := x.Fresh(ctx); err != nil || x.scans != 0 {
		t.Fatalf("Fresh after Update: %d scans (%v), want none", x.scans, err)
	}
}
