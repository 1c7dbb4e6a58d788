package warm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
)

// fakeIndex is an Index whose Search answers from a function and records
// the queries it was asked.
type fakeIndex struct {
	mu     sync.Mutex
	asked  []search.Query
	search func(search.Query) ([]search.Hit, error)
}

func (f *fakeIndex) Sync(context.Context, index.Snapshot) error { return nil }

func (f *fakeIndex) Search(_ context.Context, q search.Query) ([]search.Hit, error) {
	f.mu.Lock()
	f.asked = append(f.asked, q)
	f.mu.Unlock()
	return f.search(q)
}

func (f *fakeIndex) queries() []search.Query {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]search.Query(nil), f.asked...)
}

// serve runs a Server of x on a new state folder until the test ends, and
// returns the folder.
func serve(t *testing.T, x Index, synced bool) (string, *Server) {
	t.Helper()
	dir := t.TempDir()
	s := New(Options{StateDir: dir, MemoryDir: "/notes", Version: "v1", Recheck: 10 * time.Millisecond}, x)
	if synced {
		s.Sync(context.Background(), index.Snapshot{})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(dir, state.WarmSocket)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the socket outlived Run: %v", err)
		}
	})
	waitFor(t, func() bool {
		_, err := os.Lstat(filepath.Join(dir, state.WarmSocket))
		return err == nil
	})
	return dir, s
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAskWithoutDaemon(t *testing.T) {
	t0 := time.Now()
	_, err := Ask(context.Background(), t.TempDir(), "/notes", "v1", search.Query{Words: "x"})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Ask: %v, want ErrUnavailable", err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("Ask without a daemon took %s", d)
	}
}

func TestAskAnswers(t *testing.T) {
	x := &fakeIndex{search: func(q search.Query) ([]search.Hit, error) {
		if q.Words == "the" {
			return nil, search.ErrNoWords
		}
		return []search.Hit{{File: "user-a.md", Name: "a", Score: 1.5, Explain: &search.Explanation{Text: 1.5}}}, nil
	}}
	dir, _ := serve(t, x, true)
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, state.WarmSocket): 0o600} {
		if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	q := search.Query{Words: "staging server", Phrasings: []string{"staging host"}, Project: "p", All: true,
		Type: "project", AllVersions: true, Limit: 7, Explain: true}
	hits, err := Ask(context.Background(), dir, "/notes", "v1", q)
	if err != nil || len(hits) != 1 || hits[0].File != "user-a.md" || hits[0].Explain == nil || hits[0].Explain.Text != 1.5 {
		t.Fatalf("Ask: %+v, %v", hits, err)
	}
	got := x.queries()[0]
	if got.Words != q.Words || len(got.Phrasings) != 1 || got.Phrasings[0] != "staging host" || got.Project != "p" ||
		!got.All || got.Type != "project" || !got.AllVersions || got.Limit != 7 || !got.Explain {
		t.Errorf("the daemon was asked %+v, want %+v", got, q)
	}
	if _, err := Ask(context.Background(), dir, "/notes", "v1", search.Query{Words: "the"}); !errors.Is(err, search.ErrNoWords) {
		t.Errorf("Ask with stop words: %v, want search.ErrNoWords", err)
	}
}

func TestAskRefused(t *testing.T) {
	x := &fakeIndex{search: func(search.Query) ([]search.Hit, error) { return nil, errors.New("disk on fire") }}
	dir, s := serve(t, x, false)
	ask := func(memoryDir, version string) error {
		_, err := Ask(context.Background(), dir, memoryDir, version, search.Query{Words: "x"})
		return err
	}
	if err := ask("/notes", "v1"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("before the first Sync: %v, want ErrUnavailable", err)
	}
	s.Sync(context.Background(), index.Snapshot{})
	for _, c := range []struct{ dir, version string }{{"/notes", "v2"}, {"/other", "v1"}, {"/notes", "v1"}} {
		if err := ask(c.dir, c.version); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s %s: %v, want ErrUnavailable", c.dir, c.version, err)
		}
	}
	if len(x.queries()) != 1 {
		t.Errorf("the index was asked %d times, want once (the refused requests never reach it)", len(x.queries()))
	}
}

func TestAskStuckDaemon(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	x := &fakeIndex{search: func(search.Query) ([]search.Hit, error) { <-release; return nil, nil }}
	dir, _ := serve(t, x, true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if _, err := Ask(ctx, dir, "/notes", "v1", search.Query{Words: "x"}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Ask: %v, want ErrUnavailable", err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Ask waited %s for a stuck daemon", d)
	}
}

func TestServerListensAgain(t *testing.T) {
	x := &fakeIndex{search: func(search.Query) ([]search.Hit, error) { return []search.Hit{{File: "a.md"}}, nil }}
	dir, _ := serve(t, x, true)
	sock := filepath.Join(dir, state.WarmSocket)
	if err := os.RemoveAll(dir); err != nil { // the state folder deleted under the daemon
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := Ask(context.Background(), dir, "/notes", "v1", search.Query{Words: "x"})
		return err == nil
	})
	if _, err := os.Lstat(sock); err != nil {
		t.Fatal(err)
	}
}
