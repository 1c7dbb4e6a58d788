package daemon

import (
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/state"
)

func TestCompactDue(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	p := CompactPolicy{Enabled: true, Churn: 8, MinEntries: 2, Interval: 12 * time.Hour, Poll: 10 * time.Minute}
	recent := now.Add(-time.Hour)
	cases := []struct {
		name       string
		st         state.Compaction
		p          func(CompactPolicy) CompactPolicy
		entries    int
		overBudget bool
		want       string // "" = not due
	}{
		{"quiet store", state.Compaction{Churn: 3, LastCompactedAt: recent, LastAttemptedAt: recent}, nil, 10, false, ""},
		{"churn reached", state.Compaction{Churn: 8, LastCompactedAt: recent, LastAttemptedAt: recent}, nil, 10, false, "churn"},
		{"interval passed", state.Compaction{LastCompactedAt: now.Add(-12 * time.Hour), LastAttemptedAt: now.Add(-12 * time.Hour)}, nil, 10, false, "interval"},
		{"interval not yet", state.Compaction{LastCompactedAt: now.Add(-11 * time.Hour), LastAttemptedAt: now.Add(-11 * time.Hour)}, nil, 10, false, ""},
		{"too few entries", state.Compaction{Churn: 50}, nil, 1, false, ""},
		{"disabled", state.Compaction{Churn: 50}, func(p CompactPolicy) CompactPolicy { p.Enabled = false; return p }, 10, false, ""},
		{"over budget", state.Compaction{LastCompactedAt: recent, LastAttemptedAt: now.Add(-2 * time.Hour)}, nil, 10, true, "index over budget"},
		{"over budget but tried recently", state.Compaction{LastCompactedAt: recent, LastAttemptedAt: now.Add(-time.Minute)}, nil, 10, true, ""},
		{"failed just now: back off", state.Compaction{Churn: 20, Failures: 1, LastAttemptedAt: now.Add(-time.Minute), LastCompactedAt: recent}, nil, 10, false, ""},
		{"failed, backoff over", state.Compaction{Churn: 20, Failures: 1, LastAttemptedAt: now.Add(-6 * time.Minute), LastCompactedAt: recent}, nil, 10, false, "churn"},
		// Paused at the day's bound: the churn still holds, but the pass is
		// not tried again on every turn of the loop (it was ~150 a second).
		{"paused at the bound just now", state.Compaction{Churn: 20, PausedAt: now.Add(-time.Second), LastAttemptedAt: now.Add(-time.Second), LastCompactedAt: recent}, nil, 10, false, ""},
		{"paused a poll ago", state.Compaction{Churn: 20, PausedAt: now.Add(-10 * time.Minute), LastAttemptedAt: now.Add(-10 * time.Minute), LastCompactedAt: recent}, nil, 10, false, "churn"},
		// A poll later the day's removals are all still in the window: the
		// pause cannot have ended, so the pass is not tried.
		{"paused a poll ago, removals still count", state.Compaction{Churn: 20, PausedAt: now.Add(-10 * time.Minute), LastAttemptedAt: now.Add(-10 * time.Minute), LastCompactedAt: recent,
			Removed: []state.Removal{{At: now.Add(-2 * time.Hour), N: 3}, {At: now.Add(-time.Hour), N: 1}}}, nil, 10, false, ""},
		{"paused, the oldest removal aged out", state.Compaction{Churn: 20, PausedAt: now.Add(-10 * time.Minute), LastAttemptedAt: now.Add(-10 * time.Minute), LastCompactedAt: recent,
			Removed: []state.Removal{{At: now.Add(-25 * time.Hour), N: 3}, {At: now.Add(-time.Hour), N: 1}}}, nil, 10, false, "churn"},
		{"third failure waits longer", state.Compaction{Churn: 20, Failures: 3, LastAttemptedAt: now.Add(-15 * time.Minute), LastCompactedAt: recent}, nil, 10, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pol := p
			if tc.p != nil {
				pol = tc.p(p)
			}
			reason, due := compactDue(tc.st, pol, tc.entries, tc.overBudget, now)
			if due != (tc.want != "") || reason != tc.want {
				t.Fatalf("compactDue = %q, %v; want %q", reason, due, tc.want)
			}
		})
	}
}
