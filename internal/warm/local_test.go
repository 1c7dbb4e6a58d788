package warm

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memoryd/memoryd/internal/search"
)

func writeFact(t *testing.T, dir, name, words string) {
	t.Helper()
	body := "---\nname: " + name + "\ndescription: A fact about " + words + "\nmetadata:\n  type: reference\n---\n" + words + ".\n"
	if err := os.WriteFile(filepath.Join(dir, "reference-"+name+".md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func found(t *testing.T, l *Local, words, file string) bool {
	t.Helper()
	hits, err := l.Search(context.Background(), search.Query{Words: words})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.File == file {
			return true
		}
	}
	return false
}

// TestLocalChecksOnlyAfterAChange: a change the watcher sees is found by
// the next searches; with the watcher stopped, nothing checks the folder
// before a query any more.
func TestLocalChecksOnlyAfterAChange(t *testing.T) {
	mem := t.TempDir()
	writeFact(t, mem, "alpha", "zebras")
	x, err := search.Open(t.TempDir(), mem)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	l := NewLocal(x, mem, nil)
	l.Start()
	if !found(t, l, "zebras", "reference-alpha.md") {
		t.Fatal("the first search does not find the fact")
	}
	writeFact(t, mem, "beta", "okapis")
	waitFor(t, func() bool { return found(t, l, "okapis", "reference-beta.md") })
	l.Stop()
	for len(l.w.Events()) > 0 {
		<-l.w.Events() // events the stopped watcher left unread keep the folder dirty
	}
	found(t, l, "okapis", "reference-beta.md") // takes a change the watcher saw before it stopped, if any
	writeFact(t, mem, "gamma", "narwhals")
	if found(t, l, "narwhals", "reference-gamma.md") {
		t.Fatal("a search checked the folder although no watcher saw a change")
	}
}

// TestLocalChecksInTheBackground: once the watcher is watching, the folder
// is checked without a search asking, so the first searches do not pay
// for it: a fact written before the start is found by a search that no
// longer checks (shown by one written after the watcher stopped, which it
// does not find).
func TestLocalChecksInTheBackground(t *testing.T) {
	mem := t.TempDir()
	writeFact(t, mem, "alpha", "zebras")
	x, err := search.Open(t.TempDir(), mem)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	l := NewLocal(x, mem, nil)
	l.Start()
	waitFor(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.live && !l.dirty
	})
	l.Stop()
	writeFact(t, mem, "gamma", "narwhals")
	if !found(t, l, "zebras", "reference-alpha.md") {
		t.Fatal("the background check did not index the fact written before the start")
	}
	if found(t, l, "narwhals", "reference-gamma.md") {
		t.Fatal("a search checked the folder although the background check had")
	}
}

// TestLocalLeavesAChangeToTheSearch: a change the watcher saw is checked
// by the next search, never cleared by a check that ran while the file
// was half written (a CREATE seen before the WRITE): the search finds the
// file as its writer left it.
func TestLocalLeavesAChangeToTheSearch(t *testing.T) {
	mem := t.TempDir()
	writeFact(t, mem, "alpha", "zebras")
	x, err := search.Open(t.TempDir(), mem)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	l := NewLocal(x, mem, nil)
	l.Start()
	defer l.Stop()
	settled := func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.live && !l.dirty
	}
	waitFor(t, settled)
	path := filepath.Join(mem, "reference-delta.md")
	if err := os.WriteFile(path, []byte("---\nname: delta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !settled() }) // the watcher saw the half-written file
	writeFact(t, mem, "delta", "okapis")
	if !found(t, l, "okapis", "reference-delta.md") {
		t.Fatal("the search after a change the watcher saw does not find the file as written")
	}
}
