package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/memoryd/memoryd/internal/backoff"
	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/state"
)

// Syncer runs one sync round with the notes repository's remote
// (gitsync.Syncer).
type Syncer interface {
	Round(ctx context.Context) (gitsync.Result, error)
}

// SyncPolicy configures sync (the sync.* keys).
type SyncPolicy struct {
	// Interval is how often an idle daemon runs a round (5 min).
	Interval time.Duration
	// AfterCommit is the quiet period after the daemon's last commit
	// before a round pushes it (1 s).
	AfterCommit time.Duration
}

// SyncStatus is the sync part of the status.
type SyncStatus struct {
	Enabled bool   `json:"enabled"`
	Remote  string `json:"remote,omitempty"` // "origin/main"
	Ahead   int    `json:"ahead"`
	Behind  int    `json:"behind"`
	// LastSyncAt is the end of the last round that reached the remote.
	LastSyncAt time.Time `json:"lastSyncAt,omitzero"`
	// OfflineSince is when the rounds started failing to reach the remote.
	OfflineSince time.Time `json:"offlineSince,omitzero"`
	Problem      string    `json:"problem,omitempty"`  // the last round's failure
	Paused       string    `json:"paused,omitempty"`   // why the remote's commits wait, and what to run
	Conflict     string    `json:"conflict,omitempty"` // the file that is not a memory file whose conflict pauses sync
	// Review lists the inbox files sync made from this machine's version
	// of a fact the remote changed too, while they wait for review.
	Review []string  `json:"review,omitempty"`
	Pulled int       `json:"pulled"` // commits pulled since the daemon started
	Pushed int       `json:"pushed"` // commits pushed since the daemon started
	NextAt time.Time `json:"nextAt,omitzero"`
	// RoundStartedAt is when the last finished round started, whatever its
	// outcome: a command that nudged the daemon at t waits for a round
	// that started at t or later.
	RoundStartedAt time.Time `json:"roundStartedAt,omitzero"`
	Running        bool      `json:"running,omitempty"`
	LastTook       string    `json:"lastTook,omitempty"`
}

// syncState is the loop's sync bookkeeping.
type syncState struct {
	next    time.Time // the next round; zero when sync is off
	running bool
	again   bool      // a commit came while a round ran: another follows it
	nudged  bool      // a command asked for a round while one ran: another follows at once
	started time.Time // when the running round started
	fails   int
	// offlineBefore is when the previous daemon's rounds started failing
	// to reach the remote, zero when they did not: a refusal that lasts
	// a day is still seen after a restart.
	offlineBefore time.Time
	results       chan syncResult
}

type syncResult struct {
	res  gitsync.Result
	err  error
	took time.Duration
}

// syncQuietDefault is the quiet period after a commit before a round.
const syncQuietDefault = time.Second

func (l *loop) syncOn() bool { return l.d.deps.Sync != nil && l.d.deps.Git != nil }

// initSync schedules the first round at start.
func (l *loop) initSync(now time.Time) {
	l.sync.results = make(chan syncResult, 1)
	l.status.Sync.Enabled = l.syncOn()
	if l.syncOn() {
		l.sync.next = now
	}
}

// readPreviousSync keeps from the previous daemon's status, before this
// one publishes its own, when its rounds started failing to reach the
// remote.
func (l *loop) readPreviousSync() {
	var prev Status
	if err := state.ReadJSON(l.d.opts.StateDir, state.StatusFile, &prev); err == nil && prev.Sync.Enabled {
		l.sync.offlineBefore = prev.Sync.OfflineSince
	}
}

// syncDue says when the next round is due.
func (l *loop) syncDue() (time.Time, bool) {
	return l.sync.next, l.syncOn() && !l.sync.running && !l.sync.next.IsZero()
}

// afterCommitSync pulls the next round close after a commit of the
// daemon's, unless rounds are failing (then the backoff holds).
func (l *loop) afterCommitSync(now time.Time) {
	if !l.syncOn() || l.sync.fails > 0 {
		return
	}
	quiet := l.d.opts.Sync.AfterCommit
	if quiet <= 0 {
		quiet = syncQuietDefault
	}
	if l.sync.running {
		l.sync.again = true
		return
	}
	if at := now.Add(quiet); l.sync.next.IsZero() || at.Before(l.sync.next) {
		l.sync.next = at
	}
}

// startSync runs a round beside the loop. It runs beside the loop's jobs
// too: fetch and push take no lock of memoryd's, and the round holds the
// write lock only while it integrates, so a commit waits a moment at most.
func (l *loop) startSync(ctx context.Context, now time.Time) {
	if !l.syncOn() || l.sync.running {
		return
	}
	if l.paused {
		l.sync.next = now.Add(pausePoll)
		return
	}
	l.sync.running, l.sync.next, l.sync.started = true, time.Time{}, now
	l.status.Sync.Running = true
	go func() {
		start := time.Now()
		res, err := l.d.deps.Sync.Round(ctx)
		l.sync.results <- syncResult{res: res, err: err, took: time.Since(start)}
	}()
}

// finishSync records a round's result and schedules the next.
func (l *loop) finishSync(r syncResult, now time.Time) {
	l.sync.running = false
	defer func() { l.sync.again = false }()
	s := &l.status.Sync
	s.Running, s.LastTook, s.RoundStartedAt = false, took(r.took), l.sync.started
	if r.res.Target != "" {
		s.Remote = r.res.Target
	}
	s.Ahead, s.Behind = r.res.Ahead, r.res.Behind
	s.Pulled += r.res.Pulled
	s.Pushed += r.res.Pushed
	s.Review = append(s.Review, r.res.Review...)
	s.Paused, s.Conflict = r.res.Paused, r.res.Conflict
	interval := l.d.opts.Sync.Interval
	if interval <= 0 {
		interval = 5 * time.Minute
	}
	switch {
	case r.err == nil:
		if l.sync.fails > 0 || s.Problem != "" {
			l.log.Info("sync recovered", "remote", s.Remote)
		}
		l.sync.fails, s.Problem, s.OfflineSince, s.LastSyncAt = 0, "", time.Time{}, now
		l.sync.offlineBefore = time.Time{}
		l.sync.next = now.Add(interval)
		if l.sync.again {
			l.afterCommitSync(now)
		}
	case errors.Is(r.err, context.Canceled):
		return
	default:
		l.syncFailed(r.err, now, interval)
	}
	if r.res.Pulled > 0 {
		// What arrived: re-read the folder at the next rebuild.
		l.rescan = true
		l.indexDeb.touch(now)
	}
	if l.sync.nudged && !errors.Is(r.err, context.Canceled) {
		l.sync.nudged, l.sync.next = false, now
	}
	l.pruneReview()
	s.NextAt = l.sync.next
	// At once, not within statusEvery: a command may wait for this round.
	l.publishStatus(now)
}

// syncFailed records a round that ended in err: the next round after a
// backoff (the interval when there is no remote or the error is not one
// a retry may clear), the problem, logged when it changed, and since when
// the remote has been unreachable.
func (l *loop) syncFailed(err error, now time.Time, interval time.Duration) {
	s := &l.status.Sync
	l.sync.fails++
	wait := backoff.Delay(l.sync.fails, min(5*time.Second, interval), interval)
	l.sync.next = now.Add(wait)
	if s.Problem != err.Error() {
		l.log.Warn("sync did not finish", "err", err, "retry_in", wait)
	}
	s.Problem = err.Error()
	if errors.Is(err, gitsync.ErrOffline) {
		if s.OfflineSince.IsZero() {
			s.OfflineSince = now
			if before := l.sync.offlineBefore; !before.IsZero() && before.Before(now) {
				s.OfflineSince = before
			}
		}
		return
	}
	s.OfflineSince = time.Time{}
	if !errors.Is(err, gitsync.ErrPaused) {
		// No remote, or something unexpected: the interval, not a quick
		// retry.
		l.sync.next = now.Add(interval)
	}
}

// nudge answers a command's request (Deps.Nudge): a round now, or right
// after the one that runs (it may have fetched before the request), and
// the status at once.
func (l *loop) nudge(now time.Time) {
	if l.syncOn() {
		if l.sync.running {
			l.sync.nudged = true
		} else {
			l.sync.next = now
		}
	}
	l.pruneReview()
	l.publishStatus(now)
}

// pruneReview drops the review items that were reviewed (are gone).
func (l *loop) pruneReview() {
	s := &l.status.Sync
	kept := s.Review[:0]
	seen := map[string]bool{}
	for _, f := range s.Review {
		if seen[f] {
			continue
		}
		seen[f] = true
		if _, err := os.Lstat(filepath.Join(l.d.opts.MemoryDir, filepath.FromSlash(f))); err == nil {
			kept = append(kept, f)
		}
	}
	s.Review = kept
}

// syncProblems is what the sync status shows to be wrong, for Problems.
func (s *SyncStatus) problems() []string {
	if !s.Enabled {
		return nil
	}
	var p []string
	switch {
	case s.Paused != "":
		p = append(p, "sync paused: "+s.Paused)
	case !s.OfflineSince.IsZero():
		p = append(p, fmt.Sprintf("sync: offline since %s, %d commit(s) ahead: %s",
			s.OfflineSince.Local().Format("2006-01-02 15:04:05"), s.Ahead, s.Problem))
	case s.Problem != "":
		p = append(p, "sync: "+s.Problem)
	}
	if n := len(s.Review); n > 0 {
		p = append(p, fmt.Sprintf("sync: %d fact(s) changed on both machines wait in _inbox/ (memoryd review): %v", n, s.Review))
	}
	return p
}
