// Package watcher reports changes in a memory folder as hints for the
// daemon. It watches the folder and every non-hidden directory below it
// with fsnotify (directories, never single files: editors save by renaming a
// temporary file over the original), filters names, and tells the consumer to
// rescan everything whenever the event stream may have missed something: at
// start, on overflow, after an error, when a directory moves, and now and then
// anyway. Events are hints: the consumer re-reads the files it is told about.
package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/memoryd/memoryd/internal/backoff"
)

// DefaultRescanInterval is the period of the Rescan hint sent even when
// nothing seems to happen, in case a change slipped past the watches.
const DefaultRescanInterval = 10 * time.Minute

// Retry delays for a watcher that failed: the first retry comes quickly (a
// folder being replaced is back within milliseconds), later ones at most every
// maxRetry so a folder that stays gone costs nothing. Jitter spreads them over
// [d/2, d) so that several daemons woken by the same event do not retry in
// lockstep.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 30 * time.Second
)

// eventBuffer is the capacity of the Events channel. When it is full the
// consumer gets a Rescan instead of more events (see emitter).
const eventBuffer = 256

// Options configure a Watcher.
type Options struct {
	// Dir is the memory folder. It need not exist yet: Run keeps retrying.
	Dir string
	// Ignore reports paths (slash-separated, relative to Dir) that are never
	// reported; the daemon passes index.Ignored. Nil reports everything.
	// Called from the Run goroutine; it must be quick.
	Ignore func(rel string) bool
	// RescanInterval is the period of the Rescan hint; 0 means
	// DefaultRescanInterval.
	RescanInterval time.Duration
	// Flat watches Dir alone, not the directories below it (transcript
	// folders, whose subtrees can be large and are not ours).
	Flat bool
	// Logger receives failures and recoveries; nil discards them.
	Logger *slog.Logger
}

// Event is one hint for the consumer.
type Event struct {
	// Path is the changed path, slash-separated and relative to Dir. It may
	// name a file that no longer exists, or a directory; the consumer
	// re-stats it. Empty when Rescan is set.
	Path string
	// Rescan means "re-read everything": changes may have been missed.
	Rescan bool
}

// Watcher watches one memory folder. New starts nothing; Run does the work.
type Watcher struct {
	opts   Options
	log    *slog.Logger
	events chan Event
	newFS  func() (fsWatcher, error) // tests replace it
}

// New returns a Watcher for opts. It starts nothing.
func New(opts Options) *Watcher {
	if opts.RescanInterval <= 0 {
		opts.RescanInterval = DefaultRescanInterval
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Watcher{
		opts:   opts,
		log:    logger.With("component", "watcher"),
		events: make(chan Event, eventBuffer),
		newFS:  newNotifyWatcher,
	}
}

// Events returns the channel of hints. It is buffered and never closed;
// stop reading when Run has returned. A consumer that falls behind loses no
// change: once the buffer is full, further events collapse into one Rescan
// delivered as soon as there is room.
func (w *Watcher) Events() <-chan Event { return w.events }

// Run watches until ctx is done, then closes its watches and returns nil;
// every goroutine it started has ended by then. It sends a Rescan once the
// watches are set up. If watching fails (the folder is missing or removed,
// fsnotify reports an error), Run sends a Rescan when it was watching, logs the
// error once (not on every retry), and retries with capped exponential backoff
// until it works again, then logs the recovery. It returns an error at once
// only when Options.Dir is empty (or relative and the working directory
// is unknown). Run must not be called concurrently with
// itself.
func (w *Watcher) Run(ctx context.Context) error {
	if w.opts.Dir == "" {
		return errors.New("watcher: no memory folder given")
	}
	root, err := filepath.Abs(w.opts.Dir) // "." would make subdirectory names relative to nothing
	if err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	l := &loop{
		root:     root,
		ignore:   w.opts.Ignore,
		flat:     w.opts.Flat,
		log:      w.log,
		newFS:    w.newFS,
		interval: w.opts.RescanInterval,
		out:      emitter{ch: w.events},
		bo:       backoff.Backoff{Base: minRetry, Max: maxRetry},
		retry:    time.NewTimer(0), // first start: now
		periodic: time.NewTimer(w.opts.RescanInterval),
	}
	defer l.retry.Stop()
	defer l.periodic.Stop()
	defer l.stopWatching()
	for {
		var evC <-chan fsnotify.Event
		var errC <-chan error
		if l.fs != nil {
			evC, errC = l.fs.events(), l.fs.errors()
		}
		select {
		case <-ctx.Done():
			return nil
		case l.out.owed() <- Event{Rescan: true}:
			l.out.sent()
		case <-l.retry.C:
			if err := l.start(); err != nil {
				l.fail(err)
			}
		case <-l.periodic.C:
			l.rescan()
		case ev, ok := <-evC:
			if !ok {
				l.apply(stepFail, errors.New("fsnotify: events channel closed"))
				continue
			}
			l.apply(l.handleEvent(ev))
		case err, ok := <-errC:
			if !ok {
				l.apply(stepFail, errors.New("fsnotify: errors channel closed"))
				continue
			}
			l.apply(l.handleError(err))
		}
	}
}

// loop is the state of one Run call. Only accessed from the Run goroutine,
// so no mutex is needed.
type loop struct {
	root     string
	ignore   func(rel string) bool
	flat     bool // watch the root only
	log      *slog.Logger
	newFS    func() (fsWatcher, error)
	interval time.Duration

	out      emitter
	fs       fsWatcher       // nil while not watching
	dirs     map[string]bool // watched directories (as fsnotify names them), root included
	bo       backoff.Backoff
	retry    *time.Timer // next attempt to start watching; stopped while watching
	periodic *time.Timer // next periodic Rescan; reset by every Rescan
	failure  string      // the failure last logged; "" while healthy
}

// start sets up a new fsnotify watcher on the whole tree and then sends a
// Rescan: changes made before the watches existed were not seen. On error
// nothing is left open.
func (l *loop) start() error {
	fi, err := os.Stat(l.root)
	if err != nil {
		return fmt.Errorf("watch %s: %w", l.root, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("watch %s: not a directory", l.root)
	}
	fsw, err := l.newFS()
	if err != nil {
		return fmt.Errorf("watch %s: %w", l.root, err)
	}
	l.fs, l.dirs = fsw, make(map[string]bool)
	if err := l.addTree(l.root); err != nil {
		l.stopWatching()
		return err
	}
	if l.failure != "" {
		l.log.Info("watching memory folder again", "dir", l.root, "was", l.failure)
		l.failure = ""
	}
	l.bo.Reset()
	l.rescan()
	return nil
}

// fail schedules the next start after a backoff delay, logging err only
// when it differs from the failure logged last.
func (l *loop) fail(err error) {
	d := l.bo.Next()
	if msg := err.Error(); msg != l.failure {
		l.log.Warn("watching memory folder failed; retrying with backoff",
			"dir", l.root, "err", err, "retry_in", d.Round(time.Millisecond))
		l.failure = msg
	}
	l.retry.Reset(d)
}

// apply carries out what handleEvent or handleError decided.
func (l *loop) apply(s step, err error) {
	switch s {
	case stepResync:
		l.log.Info("setting up watches again", "dir", l.root, "reason", err)
		l.stopWatching()
		if err := l.start(); err != nil {
			l.rescan()
			l.fail(err)
		}
	case stepFail:
		l.stopWatching()
		l.rescan() // changes may have been missed, and the folder may be gone
		l.fail(err)
	}
}

// rescan owes the consumer a Rescan; the periodic one is due a full
// interval later.
func (l *loop) rescan() {
	l.out.rescan()
	l.periodic.Reset(l.interval)
}

// stopWatching closes the fsnotify watcher, if any; fsnotify's Close waits
// for its reading goroutine to end.
func (l *loop) stopWatching() {
	if l.fs == nil {
		return
	}
	if err := l.fs.Close(); err != nil {
		l.log.Debug("close fsnotify watcher", "err", err)
	}
	l.fs, l.dirs = nil, nil
}
