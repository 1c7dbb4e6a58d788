package daemon

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

// slowSearch is a search index whose first Sync takes until released, as
// the first build of a large store does.
type slowSearch struct {
	release chan struct{}
	mu      sync.Mutex
	synced  [][]string // the files of each Sync's snapshot
}

func (s *slowSearch) Sync(ctx context.Context, snap index.Snapshot) error {
	s.mu.Lock()
	first := len(s.synced) == 0
	var files []string
	for _, m := range snap.Memories {
		files = append(files, m.File)
	}
	s.synced = append(s.synced, files)
	s.mu.Unlock()
	if first {
		select {
		case <-s.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (s *slowSearch) syncs() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.synced)
}

// TestLoopSearchSyncDoesNotHoldUpCommits: while the search index takes its
// time, the loop rebuilds and commits as usual; the snapshots offered
// meanwhile come down to one Sync, of the newest.
func TestLoopSearchSyncDoesNotHoldUpCommits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		x := &slowSearch{release: make(chan struct{})}
		f.deps.Search = x
		base := f.startSettled()

		f.write("user-a.md", "first fact")
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if !strings.Contains(f.index(), "first fact") || len(f.git.commitTimes()) != base+1 {
			t.Fatalf("with the search index busy: index %q, %d commits", f.index(), len(f.git.commitTimes())-base)
		}
		f.write("user-b.md", "second fact")
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if got := len(x.syncs()); got != 1 {
			t.Fatalf("%d Syncs while the first ran, want 1", got)
		}
		close(x.release)
		synctest.Wait()
		syncs := x.syncs()
		if len(syncs) != 2 || !slices.Equal(syncs[1], []string{"user-a.md", "user-b.md"}) {
			t.Fatalf("Syncs after the first: %q, want one of both files", syncs)
		}
		f.shutdown()
	})
}
