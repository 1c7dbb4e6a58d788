package transcript

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// rediscoverAfterError is how long Sources waits before trying again to open
// a store that failed to open. It is short because the usual failure is
// transient: OpenCode creates its database file a moment before its tables.
const rediscoverAfterError = 2 * time.Second

// Sources is the set of transcript sources extraction reads. Opened with
// OpenSources it finds them with Discover and looks again, on the
// next listing, whenever a store appears or disappears (OpenCode run for the
// first time after memoryd started, say). Its methods are safe for
// concurrent use.
type Sources struct {
	loc      Locations
	opts     Options
	discover bool
	log      *slog.Logger

	mu      sync.RWMutex // guards the fields below; readers hold it while they use a source
	list    []Source
	found   string    // the stores that existed at the last discovery
	err     error     // what the last discovery could not open
	errTime time.Time // when it failed
	closed  bool
	logged  struct{ found, err string } // what was last logged, to log changes only

	retryMu sync.Mutex
	retry   map[string]time.Time // source → the since of a listing it failed, asked again next time
}

// OpenSources discovers the transcript stores in loc. Stores that exist but
// cannot be opened are reported by Err and tried again later; they do not
// stop the others.
func OpenSources(loc Locations, opts Options) *Sources {
	s := &Sources{loc: loc, opts: opts, discover: true, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.log = s.log.With("component", "transcript")
	s.mu.Lock()
	s.rediscover(loc.Fingerprint())
	s.mu.Unlock()
	return s
}

// FixedSources is a set of sources that never changes (tests, tools).
func FixedSources(list ...Source) *Sources {
	return &Sources{list: list, log: slog.New(slog.DiscardHandler)}
}

// rediscover opens the stores anew; s.mu is held for writing.
func (s *Sources) rediscover(key string) {
	for _, src := range s.list {
		src.Close()
	}
	s.list, s.err = Discover(s.loc, s.opts)
	s.found = key
	msg := ""
	if s.err != nil {
		s.errTime = time.Now()
		msg = s.err.Error()
	}
	if msg != s.logged.err && msg != "" {
		s.log.Warn("some transcript stores could not be opened; trying again", "err", s.err)
	}
	names := make([]string, len(s.list))
	for i, src := range s.list {
		names[i] = src.Name()
	}
	if found := strings.Join(names, ","); found != s.logged.found || msg != s.logged.err {
		s.log.Info("transcript sources", "found", found)
		s.logged.found = found
	}
	s.logged.err = msg
}

// refresh rediscovers when the set of existing stores changed, or when a
// store failed to open a while ago.
func (s *Sources) refresh() {
	if !s.discover {
		return
	}
	key := s.loc.Fingerprint()
	stale := func() bool {
		return !s.closed && (key != s.found || (s.err != nil && time.Since(s.errTime) > rediscoverAfterError))
	}
	s.mu.RLock()
	again := stale()
	s.mu.RUnlock()
	if !again {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if stale() {
		s.rediscover(key)
	}
}

// Names lists the sources found, for doctor and status.
func (s *Sources) Names() []string {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, len(s.list))
	for i, src := range s.list {
		names[i] = src.Name()
	}
	return names
}

// Err is what the last discovery could not open, or nil.
func (s *Sources) Err() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.err
}

// WatchPaths lists the folders whose changes hint at new sessions: every
// source's, and OpenCode's data folder even before OpenCode created its
// database there (a watcher waits for a missing folder to appear).
func (s *Sources) WatchPaths() []string {
	s.refresh()
	s.mu.RLock()
	var paths []string
	openCode := false
	for _, src := range s.list {
		paths = append(paths, src.WatchPaths()...)
		openCode = openCode || strings.HasPrefix(src.Name(), "opencode")
	}
	s.mu.RUnlock()
	if s.discover && !openCode {
		if s.loc.OpenCodeDB != "" {
			paths = append(paths, filepath.Dir(s.loc.OpenCodeDB))
		} else if s.loc.OpenCodeData != "" {
			paths = append(paths, s.loc.OpenCodeData)
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

// Listing is the result of asking every source what changed.
type Listing struct {
	Sessions []Session
	Complete map[string]bool // sources listed in full (from the zero time) without error
}

// Changed asks every source for the sessions updated at or after since.
// A failing source is named in the error and the others' sessions are
// returned; the failed source is asked from the earlier since next time, so
// a caller that moves on misses nothing of it.
func (s *Sources) Changed(ctx context.Context, since time.Time) (Listing, error) {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	l := Listing{Complete: map[string]bool{}}
	var errs []error
	for _, src := range s.list {
		name := src.Name()
		from := since
		s.retryMu.Lock()
		if r, ok := s.retry[name]; ok && r.Before(from) {
			from = r
		}
		s.retryMu.Unlock()
		ss, err := src.Changed(ctx, from)
		s.retryMu.Lock()
		if err != nil {
			if s.retry == nil {
				s.retry = map[string]time.Time{}
			}
			s.retry[name] = from
		} else {
			delete(s.retry, name)
		}
		s.retryMu.Unlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		l.Complete[name] = since.IsZero() || from.IsZero()
		l.Sessions = append(l.Sessions, ss...)
	}
	return l, errors.Join(errs...)
}

// ErrNoSource is returned for a session of a source that is not (or no
// longer) there.
var ErrNoSource = errors.New("no such transcript source")

// Use calls fn with the named source, which stays open until fn returns.
func (s *Sources) Use(name string, fn func(Source) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, src := range s.list {
		if src.Name() == name {
			return fn(src)
		}
	}
	return fmt.Errorf("%w: %q", ErrNoSource, name)
}

// Close closes every source.
func (s *Sources) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, src := range s.list {
		errs = append(errs, src.Close())
	}
	s.list = nil
	s.closed = true
	return errors.Join(errs...)
}

// Each calls fn with every source found, for reports.
func (s *Sources) Each(fn func(Source)) {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, src := range s.list {
		fn(src)
	}
}
