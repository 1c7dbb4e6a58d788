package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/watcher"
)

// Timing of the loop's own checks.
const (
	pausePoll       = time.Second      // while a merge or rebase is under way
	commitRetryBase = time.Second      // first wait after a busy repository
	commitRetryMax  = 15 * time.Second // longest wait between commit attempts
	shutdownCommit  = 10 * time.Second // how long a final commit may wait for a busy repository
)

// jobKind names the one job that may run beside the loop at a time. Jobs
// that write to git never overlap, inside this process or (through the lock
// file) across processes.
type jobKind int

const (
	jobNone jobKind = iota
	jobCommit
	jobCompact
	jobExtract
)

type jobResult struct {
	kind    jobKind
	err     error
	paths   []string               // committed paths (jobCommit)
	held    []gitstore.Held        // files kept out of the commit (jobCommit)
	ignored []gitstore.IgnoredFile // new files git ignores (jobCommit)
	hash    string
	written int           // memory files an extraction wrote (churn)
	session string        // extracted session (jobExtract)
	summary string        // the commit's subject, or what a compaction did (for the log)
	took    time.Duration // how long the job ran (for the log)
}

// loop is the daemon's state. Only accessed from the run goroutine, so no
// mutex is needed; jobs report back on results.
type loop struct {
	d   *Daemon
	log *slog.Logger

	dirty     map[string]bool // paths changed since the last rebuild
	rescan    bool            // re-read the whole folder at the next rebuild
	started   bool            // first rebuild done
	indexDeb  debounce
	commitDeb debounce
	paused    bool // a merge, rebase, cherry-pick or revert is under way

	job          jobKind
	results      chan jobResult
	jobCancel    context.CancelFunc
	search       *searchSync // nil without a search index
	commitFails  int
	commitRetry  time.Time // zero: no retry scheduled
	compact      state.Compaction
	compactCheck time.Time // next compaction check
	extract      extractState
	budget       budget
	sync         syncState

	status        Status
	statusDirty   bool      // status changed since it was last published
	statusWritten time.Time // when status.json was last written
}

func newLoop(d *Daemon) *loop {
	return &loop{
		d:         d,
		log:       d.log,
		dirty:     map[string]bool{},
		indexDeb:  debounce{quiet: d.opts.IndexQuiet, maxWait: 10 * d.opts.IndexQuiet},
		commitDeb: debounce{quiet: d.opts.CommitQuiet, maxWait: d.opts.CommitMaxWait},
		results:   make(chan jobResult, 1),
		extract:   newExtractState(),
	}
}

func (l *loop) run(ctx context.Context) error {
	now := time.Now()
	if x := l.d.deps.Search; x != nil {
		l.search = startSearchSync(ctx, x, l.d.deps.Gate, l.log)
		defer l.search.wait()
	}
	l.start(now)
	t := newLoopTimers(l.d.opts.Compact.Poll)
	defer t.stop()

	events := l.d.deps.Watcher.Events()
	activity := l.d.deps.Extraction.activityChan()
	for {
		select {
		case <-ctx.Done():
			return l.shutdown()
		case ev := <-events:
			now = time.Now()
			l.note(ev, now)
		case <-t.index.C:
			now = time.Now()
			l.rebuild(now)
		case <-t.pause.C:
			now = time.Now()
			l.rebuild(now)
		case <-t.commit.C:
			now = time.Now()
			l.startCommit(ctx, now)
		case <-t.compact.C:
			now = time.Now()
			l.poll(ctx, t, now)
		case <-activity:
			now = time.Now()
			l.pollSessions(ctx, now)
		case <-t.extract.C:
			now = time.Now()
			l.maybeExtract(ctx, now)
		case <-t.status.C:
			now = time.Now()
			l.publishStatus(now)
		case <-t.sync.C:
			now = time.Now()
			l.startSync(ctx, now)
		case r := <-l.sync.results:
			now = time.Now()
			l.finishSync(r, now)
		case <-l.d.deps.StateReset:
			now = time.Now()
			l.publishStatus(now)
		case <-l.d.deps.Nudge:
			now = time.Now()
			l.nudge(now)
		case r := <-l.results:
			now = time.Now()
			l.finish(r, now)
			l.afterJob(ctx, now)
		}
		l.rearm(t, now)
	}
}

// start reads what the state folder kept of the last run (compaction,
// sync) and sets the first status and the next checks.
func (l *loop) start(now time.Time) {
	l.loadCompactState(now)
	l.readPreviousSync()
	l.initStatus(now)
	l.initSync(now)
	l.compactCheck = nextCompactCheck(l.d.opts.Compact, now)
}

// poll is compaction's periodic check, which also sweeps what a command
// killed while the daemon ran left in the folder — not beside a job of
// the daemon's own: on NFS a lock does not keep out its own process.
func (l *loop) poll(ctx context.Context, t *loopTimers, now time.Time) {
	l.compactCheck = nextCompactCheck(l.d.opts.Compact, now)
	t.compact.Reset(l.d.opts.Compact.Poll)
	if !l.paused && l.job == jobNone {
		l.d.sweep()
	}
	l.maybeCompact(ctx, now)
}

// loopTimers are the loop's timers, owned by its goroutine: created
// stopped (but compaction's poll), re-armed from the state after every
// event (rearm).
type loopTimers struct {
	index, commit, pause, compact, extract, status, sync *time.Timer
}

func newLoopTimers(compactPoll time.Duration) *loopTimers {
	stopped := func() *time.Timer {
		t := time.NewTimer(time.Hour)
		t.Stop()
		return t
	}
	return &loopTimers{index: stopped(), commit: stopped(), pause: stopped(), compact: time.NewTimer(compactPoll),
		extract: stopped(), status: stopped(), sync: stopped()}
}

func (t *loopTimers) stop() {
	for _, x := range []*time.Timer{t.index, t.commit, t.pause, t.compact, t.extract, t.status, t.sync} {
		x.Stop()
	}
}

// rearm re-arms the timers from the state; each is a pure function of it.
func (l *loop) rearm(t *loopTimers, now time.Time) {
	at, ok := l.indexDeb.due()
	resetTimer(t.index, at, ok && !l.paused, now)
	resetTimer(t.pause, now.Add(pausePoll), l.paused, now)
	at, ok = l.commitDue()
	resetTimer(t.commit, at, ok && !l.paused, now)
	at, ok = l.extract.next(l.d.opts.Extract, now)
	resetTimer(t.extract, l.budgetHold(at), ok && l.job == jobNone, now)
	at, ok = l.statusDue()
	resetTimer(t.status, at, ok, now)
	at, ok = l.syncDue()
	resetTimer(t.sync, at, ok, now)
}

// note records a watcher event. The commit's quiet period counts from the
// user's change, not from the rebuild: an event for an index file, which
// the rebuild writes itself, only re-reads (a hand edit to one is replaced
// by the next rebuild) and does not restart the quiet period.
func (l *loop) note(ev watcher.Event, now time.Time) {
	if ev.Rescan {
		l.rescan = true
	} else {
		l.dirty[ev.Path] = true
	}
	l.indexDeb.touch(now)
	if !ev.Rescan && !index.IsIndex(ev.Path) {
		// A rescan hint is no change in itself; its rebuild schedules a
		// commit when it finds one.
		l.commitDeb.touch(now)
	}
}

// rebuild re-reads what changed and rewrites MEMORY.md when its bytes
// change; then a commit is scheduled. While the repository is mid-merge or
// mid-rebase nothing is written: the loop polls until it is over.
func (l *loop) rebuild(now time.Time) {
	if g := l.d.deps.Git; g != nil {
		if b, busy := g.Operation(); busy {
			l.pause(b, now)
			return
		}
	}
	if l.paused {
		l.log.Info("repository operation finished; catching up")
		l.paused, l.rescan = false, true
		l.status.Git.Paused, l.status.Git.PausedBy = false, ""
	}
	store := l.d.deps.Store
	if !l.started {
		l.started, l.rescan = true, true
	}
	var w index.Written
	var err error
	if l.rescan {
		// A pull, a restore or a user may have removed .gitattributes or
		// PROTOCOL.md since: Settle writes them when missing.
		w, err = store.Settle()
	} else {
		for p := range l.dirty {
			if err := store.Refresh(p); err != nil {
				l.log.Error("read memory file", "file", p, "err", err)
			}
		}
		w, err = store.WriteIndex()
	}
	if pub := l.d.deps.Published; pub != nil && err == nil {
		// After every rebuild, not only those that changed MEMORY.md:
		// another writer (memoryd add, the MCP server) may have written
		// it. The copy writes only when its bytes differ.
		if perr := pub(); perr != nil {
			l.log.Warn("copy the index where agents read it", "err", perr)
		}
	}
	if l.search != nil {
		l.search.offer(store.Snapshot())
	}
	if err != nil {
		l.log.Error("rebuild index", "err", err)
	}
	l.rescan = false
	clear(l.dirty)
	l.indexDeb.clear()
	if w.Changed || !l.commitDeb.pending {
		// A rescan (start-up, a restored folder) or a changed index may
		// have something to commit that no event announced.
		l.commitDeb.touchOnce(now)
	}
	l.updateIndexStatus(w, now)
	l.writeStatus(now)
}

// shutdown waits for a running job, then rebuilds and commits what is
// pending so that nothing waits for the next start.
func (l *loop) shutdown() error {
	if l.jobCancel != nil {
		l.jobCancel()
	}
	if l.job != jobNone {
		r := <-l.results
		l.finish(r, time.Now())
	}
	if l.sync.running {
		l.finishSync(<-l.sync.results, time.Now())
	}
	now := time.Now()
	if _, ok := l.indexDeb.due(); ok || l.paused {
		l.rebuild(now)
	}
	if g := l.d.deps.Git; g != nil && !l.paused {
		if _, ok := l.commitDeb.due(); ok {
			l.flushCommit()
		}
	}
	l.status.Running = false
	l.publishStatus(time.Now())
	return nil
}

// finish records any job's result.
func (l *loop) finish(r jobResult, now time.Time) {
	l.job, l.jobCancel = jobNone, nil
	switch r.kind {
	case jobCommit:
		l.finishCommit(r, now)
	case jobCompact:
		l.finishCompact(r, now)
	case jobExtract:
		l.finishExtract(r, now)
	}
	l.writeStatus(now)
}

// afterJob starts whatever became due while a job was running.
func (l *loop) afterJob(ctx context.Context, now time.Time) {
	if at, ok := l.commitDue(); ok && !at.After(now) {
		l.startCommit(ctx, now)
		return
	}
	l.maybeCompact(ctx, now)
	if l.job == jobNone {
		l.maybeExtract(ctx, now)
	}
}
