package warm

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/watcher"
)

// Local is a long-lived reader's own search index (the MCP server's, when
// no daemon answers), kept warm by a watcher of the memory folder: the
// folder is checked (search.Index.Fresh, a stat of every file) in the
// background when the watcher's watches are in place (and after any
// Rescan), and by a search only before that or after the watcher saw a
// change — not before every query.
type Local struct {
	x *search.Index
	w *watcher.Watcher

	checking sync.Mutex // held by the one check of the folder at a time (fresh)

	mu    sync.Mutex // guards live, dirty and seen
	live  bool       // the watcher's watches are in place (its first Rescan came)
	dirty bool       // the folder may have changed since the last check
	seen  uint64     // events the watcher sent, so a check knows none came during it

	cancel context.CancelFunc
	done   chan struct{}
}

// NewLocal returns a Local of x, the index of memoryDir; it starts nothing
// until Start.
func NewLocal(x *search.Index, memoryDir string, log *slog.Logger) *Local {
	return &Local{x: x, dirty: true,
		w: watcher.New(watcher.Options{Dir: memoryDir, Ignore: index.Ignored, Logger: log})}
}

// Start runs the watcher until Stop.
func (l *Local) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { l.w.Run(ctx) })
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-l.w.Events():
				// Any event, a Rescan included (the start, an overflow, a
				// watcher that failed), means: check the folder again. A
				// Rescan is checked at once, in the background (the first
				// one comes when the watches are in place: the searches
				// after it need not stat the folder); a changed path is
				// left to the next search, which then reads the file as
				// its writer left it, not half written.
				l.mu.Lock()
				l.live, l.dirty = true, true
				l.seen++
				l.mu.Unlock()
				if ev.Rescan {
					l.check(ctx)
				}
			}
		}
	})
	go func() { wg.Wait(); close(l.done) }()
}

// check brings the index up to date with the folder in the background
// after a Rescan, so that the next search need not.
func (l *Local) check(ctx context.Context) {
	_ = l.fresh(ctx) // on error the next search checks, and says why
}

// fresh checks the folder (search.Index.Fresh) unless a check since the
// watcher's last event already did; one check at a time, so a search that
// comes during the background check waits for it instead of checking
// again. Before the watcher is in place every call checks.
func (l *Local) fresh(ctx context.Context) error {
	l.checking.Lock()
	defer l.checking.Unlock()
	l.mu.Lock()
	need, seen := !l.live || l.dirty, l.seen
	l.mu.Unlock()
	if !need {
		return nil
	}
	if err := l.x.Fresh(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	if l.live && l.seen == seen && len(l.w.Events()) == 0 {
		l.dirty = false // no event came during the check, none waits
	}
	l.mu.Unlock()
	return nil
}

// Stop stops the watcher and waits for its goroutines.
func (l *Local) Stop() {
	if l.cancel != nil {
		l.cancel()
		<-l.done
	}
}

// Search answers q from the index, checking the folder first only when
// the watcher is not yet watching or saw a change no check has followed.
func (l *Local) Search(ctx context.Context, q search.Query) ([]search.Hit, error) {
	if err := l.fresh(ctx); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return l.x.Search(ctx, q)
}
