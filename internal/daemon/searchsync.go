package daemon

import (
	"context"
	"log/slog"

	"github.com/memoryd/memoryd/internal/index"
)

// searchSync keeps the search index in step on a goroutine of its own, so
// that a long Sync — the first one of a large store builds the whole index,
// about 2 s at 10,000 facts — never holds up the loop's rebuilds and
// commits. A snapshot offered while a Sync runs replaces one not yet taken:
// the next Sync brings the index to the newest state at once.
type searchSync struct {
	next chan index.Snapshot // the newest snapshot not yet taken, if any
	done chan struct{}       // closed when the goroutine has returned
}

// startSearchSync runs the goroutine until ctx is done, which also stops a
// Sync under way; the index keeps what it had, and a command finds it stale.
// After each Sync, gate (when not nil) goes through the snapshot's new
// facts, then the facts without a vector are embedded.
func startSearchSync(ctx context.Context, x Searcher, gate Warmer, log *slog.Logger) *searchSync {
	s := &searchSync{next: make(chan index.Snapshot, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			select {
			case <-ctx.Done():
				return
			case snap := <-s.next:
				if err := x.Sync(ctx, snap); err != nil && ctx.Err() == nil {
					log.Warn("update the search index (memoryd search rebuilds it from the files)", "err", err)
					continue
				}
				if gate != nil {
					if err := gate.Warm(ctx, snap); err != nil && ctx.Err() == nil {
						log.Debug("save the detectors' verdicts (readers run the detectors meanwhile)", "err", err)
					}
				}
				if f, ok := x.(vectorFiller); ok {
					fillVectors(ctx, f, s.next, log)
				}
			}
		}
	}()
	return s
}

// Warmer is the gate on the way out (folder.Gate): Warm runs its detectors
// over the facts it has not seen and saves their clean verdicts, so that
// the readers that give facts to agents find them and run none.
type Warmer interface {
	Warm(ctx context.Context, snap index.Snapshot) error
}

// vectorFiller is a Searcher that also embeds facts for search's second
// signal (search.Index with an embeddings endpoint; it does nothing
// without one).
type vectorFiller interface {
	FillVectors(ctx context.Context) (more bool, err error)
}

// fillVectors embeds the facts that have no vector yet, a bounded batch per
// call, until none is left, a newer snapshot waits to be synced, ctx is
// done, or a call fails (the endpoint down, the day's tokens spent: the
// next sync tries again; the embedder logs why).
func fillVectors(ctx context.Context, f vectorFiller, next chan index.Snapshot, log *slog.Logger) {
	for ctx.Err() == nil && len(next) == 0 {
		more, err := f.FillVectors(ctx)
		if err != nil && ctx.Err() == nil {
			log.Debug("embed facts for search (search answers by words meanwhile)", "err", err)
		}
		if err != nil || !more {
			return
		}
	}
}

// offer hands snap to the goroutine, replacing an older snapshot it has not
// taken. Only the loop offers.
func (s *searchSync) offer(snap index.Snapshot) {
	for {
		select {
		case s.next <- snap:
			return
		default:
		}
		select {
		case <-s.next: // older, never synced: dropped
		default:
		}
	}
}

// wait waits for the goroutine to return.
func (s *searchSync) wait() { <-s.done }
