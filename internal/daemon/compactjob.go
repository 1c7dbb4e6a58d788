package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memoryd/memoryd/internal/compactor"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/state"
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
	if !due || !l.budgetAllows(now) {
		return
	}
	l.log.Info(fmt.Sprintf("compaction started (%s): %s, churn %d", reason, plural(entries, "memory", "memories"), l.compact.Churn))
	l.updateCompact(now, func(s *state.Compaction) { s.LastAttemptedAt = now })
	jctx, cancel := context.WithCancel(ctx)
	l.job, l.jobCancel = jobCompact, cancel
	go func() {
		defer cancel()
		start := time.Now()
		res, err := c.Compact(jctx)
		r := jobResult{kind: jobCompact, err: err, took: time.Since(start)}
		if res != nil {
			r.summary, r.hash = res.Summary(), res.Commit
		}
		l.results <- r
	}()
}

// finishCompact records a pass. Success (including a pass that found
// nothing to change) resets churn; a failure is retried with backoff.
func (l *loop) finishCompact(r jobResult, now time.Time) {
	switch {
	case r.err == nil:
		l.log.Info(fmt.Sprintf("compaction done: %s (%s, %s)", r.summary, short(r.hash), took(r.took)))
		l.updateCompact(now, state.RecordPass(now))
	case errors.Is(r.err, compactor.ErrNothingToDo):
		l.log.Info(fmt.Sprintf("compaction done: nothing to change (%s)", took(r.took)))
		l.updateCompact(now, state.RecordPass(now))
	case errors.Is(r.err, compactor.ErrBoundReached):
		// Not a failure to retry sooner: it waits for a person, or for
		// the day's removals to age out. Said once, shown in status.
		if l.compact.LastError != r.err.Error() {
			l.log.Warn("compaction paused", "err", r.err)
		}
		l.updateCompact(now, func(s *state.Compaction) { s.LastError, s.PausedAt = r.err.Error(), now })
		return
	case errors.Is(r.err, context.Canceled):
		l.log.Info("compaction interrupted by shutdown")
		return
	case errors.Is(r.err, llm.ErrBudgetSpent):
		// Not a failure: the pass stopped at the day's budget (what it
		// was answered before is committed); churn stays, so it runs
		// again once the budget allows. budgetAllows logs the pause.
		l.log.Warn(fmt.Sprintf("compaction stopped at the daily token budget: %s (%s, %s)", r.summary, short(r.hash), took(r.took)), "err", r.err)
		l.budgetAllows(now)
	default:
		l.log.Error(fmt.Sprintf("compaction failed after %s", took(r.took)), "err", r.err, "failures", l.compact.Failures+1)
		l.updateCompact(now, func(s *state.Compaction) {
			s.Failures++
			s.LastError = r.err.Error()
		})
	}
	// The pass may have rewritten files and MEMORY.md; read them again.
	l.rescan = true
	l.indexDeb.touch(now)
}
