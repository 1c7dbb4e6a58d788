package daemon

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/state"
)

// fakeSyncer counts rounds and fails them while err is set.
type fakeSyncer struct {
	mu    sync.Mutex
	times []time.Time
	err   error
	ahead int
}

func (s *fakeSyncer) Round(ctx context.Context) (gitsync.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.times = append(s.times, time.Now())
	return gitsync.Result{Remote: "origin", Target: "origin/main", Ahead: s.ahead}, s.err
}

func (s *fakeSyncer) count() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.times) }
func (s *fakeSyncer) set(err error, ahead int) {
	s.mu.Lock()
	s.err, s.ahead = err, ahead
	s.mu.Unlock()
}

func TestLoopSyncsAtStartAfterCommitsAndOnInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		s := &fakeSyncer{}
		f.deps.Sync = s
		f.opts.Sync = SyncPolicy{Interval: 5 * time.Minute}
		f.startSettled()
		// At start, and after the start-up commit.
		if n := s.count(); n < 1 || n > 2 {
			t.Fatalf("%d rounds in the first minute", n)
		}
		base := s.count()
		f.write("user-a.md", "fact")
		time.Sleep(5 * time.Second) // 2 s of commit debounce, 1 s of quiet
		synctest.Wait()
		if s.count() != base+1 {
			t.Fatalf("no round after the commit: %d", s.count()-base)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		// Every 5 minutes while idle: 12 in an hour.
		if n := s.count() - base - 1; n < 11 || n > 13 {
			t.Fatalf("%d idle rounds in an hour", n)
		}
		f.shutdown()
	})
}

func TestLoopSyncOfflineBacksOffAndSaysSince(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		s := &fakeSyncer{}
		s.set(fmt.Errorf("%w: fetch from origin: could not resolve host", gitsync.ErrOffline), 3)
		f.deps.Sync = s
		f.opts.Sync = SyncPolicy{Interval: 5 * time.Minute}
		f.start()
		time.Sleep(time.Hour)
		synctest.Wait()
		// 5 s, 10 s, 20 s, … capped at the interval: about 15 in an hour, not 720.
		if n := s.count(); n < 10 || n > 20 {
			t.Fatalf("%d rounds in an hour while offline", n)
		}
		f.stop()
		<-f.done
		st := f.status()
		if st.Sync.OfflineSince.IsZero() || st.Sync.Ahead != 3 {
			t.Fatalf("status while offline: %+v", st.Sync)
		}
		found := false
		for _, p := range st.Problems() {
			found = found || (len(p) > 0 && contains(p, "offline since") && contains(p, "3 commit(s) ahead"))
		}
		if !found {
			t.Fatalf("problems: %q", st.Problems())
		}
	})
}

func TestLoopNoSyncWhenOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.startSettled()
		f.write("user-a.md", "fact")
		time.Sleep(time.Hour)
		synctest.Wait()
		f.shutdown()
		if st := f.status(); st.Sync.Enabled || !st.Sync.LastSyncAt.IsZero() {
			t.Fatalf("sync status while off: %+v", st.Sync)
		}
	})
}

// status reads the status the daemon published last.
func (f *fixture) status() Status {
	f.t.Helper()
	var st Status
	if err := state.ReadJSON(f.opts.StateDir, state.StatusFile, &st); err != nil {
		f.t.Fatal(err)
	}
	return st
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
