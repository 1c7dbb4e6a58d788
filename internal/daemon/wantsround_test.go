package daemon

import (
	"testing"
	"time"
)

func TestWantsRound(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	base := func() Status {
		var st Status
		st.Running, st.Nudge, st.Sync.Enabled = true, true, true
		st.Sync.RoundStartedAt = now.Add(-time.Minute)
		return st
	}
	for _, c := range []struct {
		name string
		edit func(*Status)
		want bool
	}{
		{"last round a minute ago", func(*Status) {}, true},
		{"last round just now", func(s *Status) { s.Sync.RoundStartedAt = now.Add(-time.Second) }, false},
		{"a round runs now", func(s *Status) { s.Sync.RoundStartedAt, s.Sync.Running = now, true }, true},
		{"offline", func(s *Status) { s.Sync.OfflineSince = now.Add(-time.Hour) }, false},
		{"sync off", func(s *Status) { s.Sync.Enabled = false }, false},
		{"an older daemon without nudges", func(s *Status) { s.Nudge = false }, false},
		{"stopped", func(s *Status) { s.Running = false }, false},
	} {
		st := base()
		c.edit(&st)
		if got := st.WantsRound(now, 3*time.Second); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
