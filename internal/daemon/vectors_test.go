package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

// fillingSearch is a search index with facts to embed: each FillVectors
// call embeds a batch, until none is left.
type fillingSearch struct {
	mu      sync.Mutex
	batches int // left to embed
	calls   int
	err     error
}

func (s *fillingSearch) Sync(context.Context, index.Snapshot) error { return nil }

func (s *fillingSearch) FillVectors(context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.err != nil {
		return false, s.err
	}
	s.batches--
	return s.batches > 0, nil
}

func (s *fillingSearch) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// TestSearchSyncFillsVectors: after a Sync, the facts are embedded batch
// after batch until none is left; a failing endpoint stops the round at
// its first call, for the next Sync to try again.
func TestSearchSyncFillsVectors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		x := &fillingSearch{batches: 3}
		s := startSearchSync(ctx, x, nil, slog.New(slog.DiscardHandler))
		s.offer(index.Snapshot{})
		time.Sleep(time.Second)
		synctest.Wait()
		if got := x.count(); got != 3 {
			t.Errorf("%d FillVectors calls, want 3", got)
		}
		x.mu.Lock()
		x.err, x.batches = errors.New("endpoint down"), 5
		x.mu.Unlock()
		s.offer(index.Snapshot{})
		time.Sleep(time.Second)
		synctest.Wait()
		if got := x.count(); got != 4 {
			t.Errorf("%d FillVectors calls, want 4 (one failed)", got)
		}
		cancel()
		s.wait()
	})
}
