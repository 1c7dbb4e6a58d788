package daemon

import (
	"time"

	"github.com/memoryd/memoryd/internal/backoff"
	"github.com/memoryd/memoryd/internal/state"
)

// CompactPolicy holds the triggers of the design's Compaction section.
type CompactPolicy struct {
	Enabled    bool
	Churn      int           // memory files changed by our commits since the last pass
	MinEntries int           // fewer memory files than this: never compact
	Interval   time.Duration // a pass at least this often
	Poll       time.Duration // how often the interval is checked
}

const (
	// retryBase is the wait after the first failed pass; it doubles per
	// failure up to the interval, so a broken provider is not hammered.
	retryBase = 5 * time.Minute
	// overBudgetEvery limits passes caused only by an index over budget: a
	// store that is legitimately large must not be compacted on every poll.
	overBudgetEvery = time.Hour
)

// compactDue reports whether a compaction pass should start now, and why.
// It is a pure function of the persisted state, the store and now.
func compactDue(st state.Compaction, p CompactPolicy, entries int, overBudget bool, now time.Time) (reason string, due bool) {
	if !p.Enabled || entries < p.MinEntries {
		return "", false
	}
	if !st.PausedAt.IsZero() {
		// Paused at the day's bound: the trigger still holds, but the pass
		// waits until the oldest of the day's removals ages out (the pause
		// cannot end sooner), and at least a poll.
		resume := st.PausedAt.Add(max(p.Poll, time.Minute))
		if end := st.PauseEnds(); end.After(resume) {
			resume = end
		}
		if now.Before(resume) {
			return "", false
		}
	}
	if st.Failures > 0 && now.Before(st.LastAttemptedAt.Add(backoff.Delay(st.Failures, retryBase, max(p.Interval, retryBase)))) {
		return "", false
	}
	switch {
	case st.Churn >= p.Churn:
		return "churn", true
	case !now.Before(st.LastCompactedAt.Add(p.Interval)):
		return "interval", true
	case overBudget && !now.Before(st.LastAttemptedAt.Add(overBudgetEvery)):
		return "index over budget", true
	}
	return "", false
}

// nextCompactCheck returns when the poll timer should next fire: the poll
// interval from now. The poll is the only periodic compaction timer.
func nextCompactCheck(p CompactPolicy, now time.Time) time.Time { return now.Add(p.Poll) }
