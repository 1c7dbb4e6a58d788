package extractor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/backoff"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/transcript"
)

// Targets returns the sessions `memoryd extract` should run over: the one
// named by want (its ID, or SOURCE/ID), or, with want "", every session
// whose newest message is a finished reply. A session named as SOURCE/ID
// that is no longer listed is returned as it is, so the pass says what
// happened to it.
func (x *Extractor) Targets(ctx context.Context, want string) ([]transcript.Session, error) {
	if src, _, ok := strings.Cut(want, "/"); ok && excluded(x.opts.Exclude, transcript.Session{Source: src}) {
		return nil, fmt.Errorf("session %q: extract.exclude leaves out %s", want, src)
	}
	// A session named is taken whatever its age; the idle ones only from
	// Options.Since on.
	list, err := x.changed(ctx, time.Time{}, want == "")
	if err != nil && len(list) == 0 {
		return nil, err
	}
	if want == "" {
		var idle []transcript.Session
		for _, s := range list {
			if s.Finished {
				idle = append(idle, s)
			}
		}
		return idle, nil
	}
	var found []transcript.Session
	for _, s := range list {
		if s.ID == want || Key(s.Source, s.ID) == want {
			found = append(found, s)
		}
	}
	names := x.deps.Sources.Names()
	switch len(found) {
	case 1:
		return found, nil
	case 0:
		if src, id, ok := strings.Cut(want, "/"); ok && slices.Contains(names, src) {
			return []transcript.Session{{Source: src, ID: id}}, nil
		}
		return nil, fmt.Errorf("no session %q in %s", want, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("session %q is in several sources; name it as SOURCE/ID", want)
}

// ExtractWaiting is Extract (or DryRun) that waits, up to patience, while
// another writer holds the folder (the daemon committing, say), retrying
// with backoff. It is for commands run by a person; the daemon schedules
// its own retries.
func (x *Extractor) ExtractWaiting(ctx context.Context, source, id string, dry bool, patience time.Duration) (Result, error) {
	deadline := time.Now().Add(patience)
	b := backoff.Backoff{Base: 100 * time.Millisecond, Max: 2 * time.Second}
	for {
		res, err := x.run(ctx, source, id, dry)
		wait := b.Next()
		if !errors.Is(err, gitstore.ErrBusy) || time.Now().Add(wait).After(deadline) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(wait):
		}
	}
}
