package daemon

import (
	"fmt"
	"time"

	"github.com/memoryd/memoryd/internal/cost"
	"github.com/memoryd/memoryd/internal/state"
)

// budget is the daily token budget's state in the loop. Only accessed from
// the loop goroutine.
type budget struct {
	paused   bool      // today's tokens reached the limit
	resumeAt time.Time // the next local midnight, while paused
	readErr  string    // the last error reading the ledger, logged once
}

// budgetAllows reports whether a background job (extraction, compaction)
// may start now: always without a limit (Options.DailyTokens 0), else while
// the tokens recorded today, by this daemon and by the commands a person
// ran, are under the limit. Pausing and resuming are each logged once and
// shown in status. A pass that has started runs to its end, so a day may
// end a little over its budget. An unreadable ledger does not stop the
// jobs; it is logged.
func (l *loop) budgetAllows(now time.Time) bool {
	limit := l.d.opts.DailyTokens
	if limit <= 0 {
		return true
	}
	led, err := state.ReadTokens(l.d.opts.StateDir)
	if msg := errText(err); msg != l.budget.readErr {
		l.budget.readErr = msg
		if err != nil {
			l.log.Warn("token ledger unreadable; the daily budget is not enforced until it is rewritten", "err", err)
		}
	}
	spent, over := cost.Spent(led, limit, now)
	switch {
	case over && !l.budget.paused:
		l.budget.paused, l.budget.resumeAt = true, cost.NextDay(now)
		l.log.Warn(fmt.Sprintf("daily token budget spent: %s of %s tokens today; background extraction and compaction paused until %s",
			cost.Group(spent), cost.Group(limit), l.budget.resumeAt.Format("2006-01-02 15:04")))
	case !over && l.budget.paused:
		l.budget.paused, l.budget.resumeAt = false, time.Time{}
		l.log.Info(fmt.Sprintf("daily token budget available again (%s of %s tokens today); background extraction and compaction resume",
			cost.Group(spent), cost.Group(limit)))
	default:
		return !over
	}
	l.status.Budget.Paused, l.status.Budget.ResumesAt = l.budget.paused, l.budget.resumeAt
	l.writeStatus(now)
	return !over
}

// budgetHold moves a job's due time to the end of a pause, so that a timer
// for work the budget holds back does not fire again and again.
func (l *loop) budgetHold(at time.Time) time.Time {
	if l.budget.paused && at.Before(l.budget.resumeAt) {
		return l.budget.resumeAt
	}
	return at
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
