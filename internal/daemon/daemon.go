// Package daemon is memoryd's one scheduler. It owns the event loop, the
// debounce timers, the compaction triggers and extraction scheduling: it
// decides when things happen and leaves how to the job packages (index,
// gitstore, compactor, extractor). Host keeps a daemon on its folder
// (the single-instance lock, the log file, the nudge signal), and Nudge is
// a command's side of that signal.
package daemon

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/compactor"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/watcher"
)

// Watcher reports changes in the memory folder (watcher.Watcher).
type Watcher interface {
	Run(ctx context.Context) error
	Events() <-chan watcher.Event
}

// Git is what the daemon needs of the notes repository (gitstore.Repo).
type Git interface {
	Busy() error
	// Operation says which git operation of the user's is under way (a
	// merge, a rebase, a detached HEAD, …), during which nothing is written.
	Operation() (gitstore.Blocker, bool)
}

// Committer commits the hand edits pending in the memory folder under its
// write lock (folder.Folder); an error matching folder.ErrBusy when
// another writer holds it.
type Committer interface {
	CommitPending(ctx context.Context, who string, message func(paths []string) string) (gitstore.Committed, error)
}

// Compactor runs one compaction pass (compactor.Compactor). It returns an
// error matching compactor.ErrNothingToDo when it ran and found nothing to
// change.
type Compactor interface {
	Compact(ctx context.Context) (*compactor.Result, error)
}

// Options configures a Daemon. Zero durations take the defaults noted.
type Options struct {
	MemoryDir string
	StateDir  string

	IndexQuiet    time.Duration // quiet period before a rebuild (50 ms)
	CommitQuiet   time.Duration // quiet period before a commit (2 s)
	CommitMaxWait time.Duration // longest a change waits for its commit (30 s)
	Budget        index.Budget
	Compact       CompactPolicy
	Extract       ExtractPolicy
	// DailyTokens is the day's token budget (llm.daily_tokens): once the
	// LLM calls recorded today reach it, no extraction or compaction starts
	// until local midnight. 0 means no limit.
	DailyTokens int
	// Sync times the rounds of Deps.Sync.
	Sync SyncPolicy

	Version string
	Logger  *slog.Logger
}

// Deps are the parts the daemon drives. Git, Compactor and the extraction
// parts may be nil: the daemon then says why in its status and carries on
// with what it has.
type Deps struct {
	Watcher    Watcher
	Store      *index.Store
	Git        Git
	Commit     Committer // set with Git
	GitProblem string    // why Git is nil, shown in status
	Compactor  Compactor
	Extraction *Extraction
	// Search, when set, is kept in step with the store after every
	// rebuild (search.Index).
	Search Searcher
	// Gate, when set with Search, goes through each synced snapshot's new
	// facts so that readers find the detectors' verdicts (folder.Gate).
	Gate Warmer
	// Published, when set, is called after every rebuild, to copy the
	// index where agents read it (Codex's AGENTS.md) when it differs there.
	// It runs on the loop goroutine: it must be quick.
	Published func() error
	// StateReset, when set, receives when the state folder was deleted
	// under the daemon and has been recreated: status.json is published
	// again at once.
	StateReset <-chan struct{}
	// Nudge, when set, receives a command's request (memoryd run turns
	// SIGUSR1 into one, see Status.Nudge): the status is published at once
	// with what the folder now holds, and, with sync on, a round that
	// starts after the request runs now and its end is published at once
	// (Status.Sync.RoundStartedAt). Repeated requests collapse.
	Nudge <-chan os.Signal
	// Sync, when set (sync.enabled), syncs with the notes repository's
	// remote: a round at start, after the daemon's commits and every
	// SyncPolicy.Interval. It needs Git.
	Sync Syncer
	// Readers, when set, answers other processes' searches from the
	// search index (warm.Server); it runs as long as the watcher.
	Readers Runner
}

// Runner is a part that runs until its context ends (warm.Server).
type Runner interface {
	Run(ctx context.Context) error
}

// Searcher is the search cache the daemon keeps current (search.Index).
type Searcher interface {
	Sync(ctx context.Context, snap index.Snapshot) error
}

// Daemon keeps one memory folder's index and history up to date.
type Daemon struct {
	opts Options
	deps Deps
	log  *slog.Logger
}

// New returns a Daemon; it starts nothing until Run.
func New(opts Options, deps Deps) *Daemon {
	if opts.IndexQuiet <= 0 {
		opts.IndexQuiet = 50 * time.Millisecond
	}
	if opts.CommitQuiet <= 0 {
		opts.CommitQuiet = 2 * time.Second
	}
	if opts.CommitMaxWait < opts.CommitQuiet {
		opts.CommitMaxWait = max(30*time.Second, opts.CommitQuiet)
	}
	if opts.Budget == (index.Budget{}) {
		opts.Budget = index.DefaultBudget()
	}
	if opts.Extract.Discover <= 0 {
		opts.Extract.Discover = 30 * time.Second
	}
	if opts.Compact.Poll <= 0 {
		opts.Compact.Poll = 10 * time.Minute
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Daemon{opts: opts, deps: deps, log: log.With("component", "daemon")}
}

// Run watches and maintains the folder until ctx ends, then commits what is
// pending and returns nil. Every goroutine it starts has ended when it
// returns.
func (d *Daemon) Run(ctx context.Context) error {
	d.sweep()
	wctx, stopWatcher := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := d.deps.Watcher.Run(wctx); err != nil {
			d.log.Error("watcher stopped", "err", err)
		}
	})
	if r := d.deps.Readers; r != nil {
		wg.Go(func() {
			if err := r.Run(wctx); err != nil {
				d.log.Error("answering searches stopped", "err", err)
			}
		})
	}
	if x := d.deps.Extraction; x != nil {
		wg.Go(func() { x.runWatchers(wctx, d.opts.Extract.Discover, d.log) })
	}
	l := newLoop(d)
	err := l.run(ctx)
	stopWatcher()
	wg.Wait()
	return err
}

// sweep removes the temporary files that a memoryd process killed mid-write
// left in the memory and state folders (atomicfile.Sweep): they would show
// in the user's git status for good. It runs at start and at every
// compaction poll (10 minutes), a listing of the folder each time.
func (d *Daemon) sweep() {
	for _, dir := range []string{d.opts.MemoryDir, d.opts.StateDir} {
		if dir == "" {
			continue
		}
		removed, err := atomicfile.Sweep(dir)
		for _, name := range removed {
			d.log.Info("removed a temporary file left by a write that was cut short", "file", filepath.Join(dir, name))
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			d.log.Warn("could not remove temporary files left by a write that was cut short", "dir", dir, "err", err)
		}
	}
}
