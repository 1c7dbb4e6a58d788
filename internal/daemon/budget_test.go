package daemon

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/memoryd/memoryd/internal/cost"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/transcript"
)

// TestLoopDailyBudgetPausesBackgroundJobsUntilTomorrow: with the day's
// tokens spent, neither a due compaction nor a due extraction starts; the
// pause is logged once and published; after local midnight both start.
func TestLoopDailyBudgetPausesBackgroundJobsUntilTomorrow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		logs := &logBuffer{}
		f.opts.Logger = infoLogger(logs)
		f.opts.DailyTokens = 1_000_000
		f.opts.Compact = CompactPolicy{Enabled: true, Churn: 1, MinEntries: 1, Interval: 12 * time.Hour, Poll: 10 * time.Minute}
		comp := &countingCompactor{}
		f.deps.Compactor = comp
		sessions := &fakeSessions{}
		ex := &fakeExtractor{fakeSessions: sessions, runs: map[string][]time.Time{}}
		x := &Extraction{Extractor: ex}
		f.deps.Extraction = x
		// `memoryd extract` run by hand spent the day's budget already.
		start := time.Now()
		if _, err := state.UpdateTokens(f.opts.StateDir, state.AddTokens(start, "extract", 1_000_512)); err != nil {
			t.Fatal(err)
		}
		f.start()
		f.write("user-a.md", "fact") // its commit makes churn 1: compaction is due
		sessions.set(transcript.Session{Source: "opencode", ID: "s1", Updated: time.Now(), Finished: true})
		x.activityChan() <- struct{}{}
		time.Sleep(time.Hour)
		synctest.Wait()
		// A session asking to remember something is due at once: it waits too.
		sessions.set(transcript.Session{Source: "opencode", ID: "s1", Updated: start, Finished: true},
			transcript.Session{Source: "opencode", ID: "kw", Updated: time.Now(), Finished: true, LastUserText: "please remember this"})
		x.activityChan() <- struct{}{}
		time.Sleep(time.Hour)
		synctest.Wait()
		if comp.count() != 0 || len(ex.get("s1")) != 0 || len(ex.get("kw")) != 0 {
			t.Fatalf("with the budget spent: %d compactions, %d+%d extractions", comp.count(), len(ex.get("s1")), len(ex.get("kw")))
		}
		var st Status
		if err := state.ReadJSON(f.opts.StateDir, state.StatusFile, &st); err != nil {
			t.Fatal(err)
		}
		midnight := cost.NextDay(start)
		if !st.Budget.Paused || st.Budget.DailyTokens != 1_000_000 || !st.Budget.ResumesAt.Equal(midnight) {
			t.Errorf("status budget %+v, want paused until %v", st.Budget, midnight)
		}
		paused := 0
		for _, m := range logs.take() {
			if strings.HasPrefix(m, "daily token budget spent: 1,000,512 of 1,000,000 tokens today") {
				paused++
			}
		}
		if paused != 1 {
			t.Errorf("the pause was logged %d times, want once", paused)
		}

		// The next day: extraction at midnight (its timer waited for it),
		// compaction at the first poll after it.
		time.Sleep(time.Until(midnight) + 11*time.Minute)
		synctest.Wait()
		for _, id := range []string{"s1", "kw"} {
			if got := ex.get(id); len(got) != 1 || !got[0].Equal(midnight) {
				t.Errorf("extraction of %s ran at %v, want once at midnight %v", id, got, midnight)
			}
		}
		if got := comp.runs(); len(got) != 1 || got[0].Before(midnight) || got[0].After(midnight.Add(10*time.Minute)) {
			t.Errorf("compaction ran at %v, want once within a poll after midnight", got)
		}
		resumed := false
		for _, m := range logs.take() {
			resumed = resumed || strings.HasPrefix(m, "daily token budget available again (0 of 1,000,000 tokens today)")
		}
		if !resumed {
			t.Error("the resumption was not logged")
		}
		f.shutdown()
	})
}

// TestLoopNoBudgetLimit: llm.daily_tokens 0 never pauses.
func TestLoopNoBudgetLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.opts.Compact = CompactPolicy{Enabled: true, Churn: 1, MinEntries: 1, Interval: 12 * time.Hour, Poll: 10 * time.Minute}
		comp := &countingCompactor{}
		f.deps.Compactor = comp
		state.UpdateTokens(f.opts.StateDir, state.AddTokens(time.Now(), "compact", 50_000_000))
		f.start()
		f.write("user-a.md", "fact")
		time.Sleep(time.Minute)
		synctest.Wait()
		if comp.count() != 1 {
			t.Fatalf("%d compactions without a limit, want 1", comp.count())
		}
		f.shutdown()
	})
}

func (c *countingCompactor) runs() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.times...)
}
