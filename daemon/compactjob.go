package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/memoryd/memoryd/compactor"
	"github.com/memoryd/memoryd/state"
)

// updateCompact applies change to the persisted state and mirrors it.
func (l *loop) updateCompact(now time.Time, change func(*state.Compaction)) {
	st, err := state.UpdateCompaction(l.d.opts.StateDir, now, change)
	if err != nil {
		l.log.Error("compaction state", "err", err)
	}
	l.compact = st
	l.status.Compaction.State = st
}

// loadCompactState reads the persisted state at start-up.
func (l *loop) loadCompactState(now time.Time) { l.updateCompact(now, func(*state.Compaction) {}) }

// addChurn counts memory files changed by this daemon's commits.
func (l *loop) addChurn(n int) {
	if n > 0 {
		l.updateCompact(time.Now(), state.AddChurn(n))
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
	l.updateCompact(now, func(s *state.Compaction) { s.LastAttemptedAt = now })
	jctx, cancel := context.WithCancel(ctx)
	l.job, l.jobCancel = jobCompact, cancel
	go func() {
		defer cancel()
		_, err := c.Compact(jctx)
		l.results <- jobResult{kind: jobCompact, err: err}
	}()
}

// finishCompact records a pass. Success (including a pass that found
// nothing to change) resets churn; a failure is retried with backoff.
func (l *loop) finishCompact(r jobResult, now time.Time) {
	switch {
	case r.err == nil || errors.Is(r.err, compactor.ErrNothingToDo):
		l.log.Info("compaction finished", "changed", r.err == nil)
		l.updateCompact(now, state.RecordPass(now))
	case errors.Is(r.err, context.Canceled):
		l.log.Info("compaction interrupted by shutdown")
		return
	default:
		l.log.Error("compaction failed", "err", r.err, "failures", l.compact.Failures+1)
		l.updateCompact(now, func(s *state.Compaction) {
			s.Failures++
			s.LastError = r.err.Error()
		})
	}
	// The pass may have rewritten files and MEMORY.md; read them again.
	l.rescan = true
	l.indexDeb.touch(now)
}
