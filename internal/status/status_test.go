package status

import (
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/state"
)

func TestStatusRelativeTime(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		d    time.Duration // how long ago; negative: to come
		want string
	}{
		{0, "just now"},
		{400 * time.Millisecond, "just now"},
		{-400 * time.Millisecond, "just now"},
		{time.Second, "1 s ago"},
		{40 * time.Second, "40 s ago"},
		{59 * time.Second, "59 s ago"},
		{59*time.Second + 600*time.Millisecond, "1 min ago"},
		{90 * time.Second, "2 min ago"},
		{2 * time.Minute, "2 min ago"},
		{-8 * time.Minute, "in 8 min"},
		{-(7*time.Minute + 59*time.Second), "in 8 min"},
		{59 * time.Minute, "59 min ago"},
		{59*time.Minute + 40*time.Second, "1 h ago"},
		{3 * time.Hour, "3 h ago"},
		{-12 * time.Hour, "in 12 h"},
		{47 * time.Hour, "47 h ago"},
		{48 * time.Hour, "2 days ago"},
		{10*24*time.Hour + 13*time.Hour, "11 days ago"},
	} {
		if got := RelTime(now.Add(-c.d), now); got != c.want {
			t.Errorf("%v ago: %q, want %q", c.d, got, c.want)
		}
	}
	if got := RelTime(time.Time{}, now); got != "never" {
		t.Errorf("zero time: %q, want never", got)
	}
}

// A fresh state's LastCompactedAt is its creation time, not a pass.
func TestStatusLastPass(t *testing.T) {
	created := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	later := created.Add(time.Hour)
	for _, c := range []struct {
		name string
		st   state.Compaction
		want time.Time
	}{
		{"fresh", state.Compaction{LastCompactedAt: created}, time.Time{}},
		{"first attempt failed", state.Compaction{LastCompactedAt: created, LastAttemptedAt: later, Failures: 1}, time.Time{}},
		{"pass recorded", state.Compaction{LastCompactedAt: later, LastAttemptedAt: later, LastPassAt: later}, later},
		{"pass, then an attempt", state.Compaction{LastCompactedAt: created, LastAttemptedAt: later, LastPassAt: created}, created},
		{"written before LastPassAt existed", state.Compaction{LastCompactedAt: later, LastAttemptedAt: later}, later},
	} {
		if got := lastPass(c.st); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
