package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memoryd/memoryd/state"
)

const compactStateFile = "compaction.json"

// UpdateCompactState changes the persisted compaction state (compaction.json
// in stateDir) under a lock and returns the result, so the daemon and the
// commands that write memory (`memoryd extract`, `memoryd compact`) can each
// record what they did without losing the other's update. A missing file
// starts from a state whose interval counts from now: a new install does not
// compact at once (the design note's "first run fires eagerly" gap).
func UpdateCompactState(stateDir string, now time.Time, change func(*CompactState)) (CompactState, error) {
	lock, err := state.LockWait(stateDir, compactStateFile+".lock")
	if err != nil {
		return CompactState{}, err
	}
	defer lock.Unlock()
	var st CompactState
	err = state.ReadJSON(stateDir, compactStateFile, &st)
	if state.IsNotExist(err) {
		st, err = CompactState{LastCompactedAt: now}, nil
	}
	if err != nil {
		// A damaged file must not stop the daemon; start afresh and say so.
		st = CompactState{LastCompactedAt: now}
		err = fmt.Errorf("compaction state unreadable, starting afresh: %w", err)
	}
	change(&st)
	if werr := state.WriteJSON(stateDir, compactStateFile, st); werr != nil {
		return st, werr
	}
	return st, err
}

// updateCompact applies change to the persisted state and mirrors it.
func (l *loop) updateCompact(now time.Time, change func(*CompactState)) {
	st, err := UpdateCompactState(l.d.opts.StateDir, now, change)
	if err != nil {
		l.log.Error("compaction state", "err", err)
	}
	l.compact = st
	l.status.Compaction.State = st
}

// loadCompactState reads the persisted state at start-up.
func (l *loop) loadCompactState(now time.Time) { l.updateCompact(now, func(*CompactState) {}) }

// addChurn counts memory files changed by this daemon's commits.
func (l *loop) addChurn(n int) {
	if n > 0 {
		l.updateCompact(time.Now(), func(s *CompactState) { s.Churn += n })
	}
}

// maybeCompact starts a compaction pass when one is due and nothing else
// runs. A pending commit goes first (afterJob orders them).
func (l *loop) maybeCompact(ctx context.Context, now time.Time) {
	c := l.d.deps.Compactor
	if c == nil || l.d.deps.Git == nil || l.job != jobNone || l.paused {
		return
	}
	entries := len(l.d.deps.Store.Snapshot().Memories)
	l.loadCompactState(now) // `memoryd extract` or `compact` may have changed it
	reason, due := compactDue(l.compact, l.d.opts.Compact, entries, l.status.Index.OverBudget, now)
	if !due {
		return
	}
	l.log.Info("compaction due", "reason", reason, "churn", l.compact.Churn, "entries", entries)
	l.updateCompact(now, func(s *CompactState) { s.LastAttemptedAt = now })
	jctx, cancel := context.WithCancel(ctx)
	l.job, l.jobCancel = jobCompact, cancel
	go func() {
		defer cancel()
		l.results <- jobResult{kind: jobCompact, err: c.Compact(jctx)}
	}()
}

// finishCompact records a pass. Success (including a pass that found
// nothing to change) resets churn; a failure is retried with backoff.
func (l *loop) finishCompact(r jobResult, now time.Time) {
	switch {
	case r.err == nil || errors.Is(r.err, ErrNothingToDo):
		l.log.Info("compaction finished", "changed", r.err == nil)
		l.updateCompact(now, RecordPass(now))
	case errors.Is(r.err, context.Canceled):
		l.log.Info("compaction interrupted by shutdown")
		return
	default:
		l.log.Error("compaction failed", "err", r.err, "failures", l.compact.Failures+1)
		l.updateCompact(now, func(s *CompactState) {
			s.Failures++
			s.LastError = r.err.Error()
		})
	}
	// The pass may have rewritten files and MEMORY.md; read them again.
	l.rescan = true
	l.indexDeb.touch(now)
}

// RecordPass is the change a finished compaction pass makes to the state:
// churn cleared, failures forgotten, the interval restarted. The daemon and
// `memoryd compact` record passes with it.
func RecordPass(now time.Time) func(*CompactState) {
	return func(s *CompactState) {
		s.Churn, s.Failures, s.LastError = 0, 0, ""
		s.LastCompactedAt, s.LastAttemptedAt = now, now
	}
}
