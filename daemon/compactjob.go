package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/memoryd/memoryd/state"
)

const compactStateFile = "compaction.json"

// loadCompactState reads the persisted compaction state. On the very first
// start the interval is counted from now, so a new install does not compact
// at once (the design note's "first run fires eagerly" gap).
func (l *loop) loadCompactState(now time.Time) {
	err := state.ReadJSON(l.d.opts.StateDir, compactStateFile, &l.compact)
	switch {
	case state.IsNotExist(err):
		l.compact = CompactState{LastCompactedAt: now}
		l.saveCompactState()
	case err != nil:
		l.log.Error("read compaction state; starting afresh", "err", err)
		l.compact = CompactState{LastCompactedAt: now}
	}
}

func (l *loop) saveCompactState() {
	if err := state.WriteJSON(l.d.opts.StateDir, compactStateFile, l.compact); err != nil {
		l.log.Error("save compaction state", "err", err)
	}
	l.status.Compaction.State = l.compact
}

// addChurn counts memory files changed by this daemon's commits.
func (l *loop) addChurn(n int) {
	if n == 0 {
		return
	}
	l.compact.Churn += n
	l.saveCompactState()
}

// maybeCompact starts a compaction pass when one is due and nothing else
// runs. A pending commit goes first (afterJob orders them).
func (l *loop) maybeCompact(ctx context.Context, now time.Time) {
	c := l.d.deps.Compactor
	if c == nil || l.d.deps.Git == nil || l.job != jobNone || l.paused {
		return
	}
	entries := len(l.d.deps.Store.Snapshot().Memories)
	reason, due := compactDue(l.compact, l.d.opts.Compact, entries, l.status.Index.OverBudget, now)
	if !due {
		return
	}
	l.log.Info("compaction due", "reason", reason, "churn", l.compact.Churn, "entries", entries)
	l.compact.LastAttemptedAt = now
	l.saveCompactState()
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
		l.compact.Churn, l.compact.Failures, l.compact.LastError = 0, 0, ""
		l.compact.LastCompactedAt = now
	case errors.Is(r.err, context.Canceled):
		l.log.Info("compaction interrupted by shutdown")
		return
	default:
		l.compact.Failures++
		l.compact.LastError = r.err.Error()
		l.log.Error("compaction failed", "err", r.err, "failures", l.compact.Failures)
	}
	l.saveCompactState()
	// The pass may have rewritten files and MEMORY.md; read them again.
	l.rescan = true
	l.indexDeb.touch(now)
}
