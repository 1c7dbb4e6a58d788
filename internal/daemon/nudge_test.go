package daemon

import (
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// TestLoopNudgeRunsARoundAndPublishesAtOnce: an idle daemon whose next
// round is minutes away runs one the moment a command nudges it, and
// publishes its end at once, with the round's start at or after the nudge.
func TestLoopNudgeRunsARoundAndPublishesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		s := &fakeSyncer{}
		nudge := make(chan os.Signal, 1)
		f.deps.Sync, f.deps.Nudge = s, nudge
		f.opts.Sync = SyncPolicy{Interval: 5 * time.Minute}
		f.startSettled()
		time.Sleep(time.Minute)
		synctest.Wait()
		base := s.count()
		asked := time.Now()
		nudge <- syscall.SIGUSR1
		synctest.Wait()
		if s.count() != base+1 {
			t.Fatalf("a nudge ran %d rounds, want 1", s.count()-base)
		}
		st := f.status()
		if !st.Nudge || st.Sync.RoundStartedAt.Before(asked) {
			t.Fatalf("status after the nudge: nudge %v, round started %v, asked %v", st.Nudge, st.Sync.RoundStartedAt, asked)
		}
		// No nudge: the next round waits for the interval.
		time.Sleep(4 * time.Minute)
		synctest.Wait()
		if s.count() != base+1 {
			t.Fatalf("rounds before the interval: %d", s.count()-base)
		}
		f.shutdown()
	})
}
