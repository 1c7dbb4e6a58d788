package cost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin for the daylight saving case

	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/state"
)

type closer struct {
	llm.Fake
	closed bool
}

func (c *closer) Close() error { c.closed = true; return nil }

func TestCounterRecordsEveryCall(t *testing.T) {
	dir := t.TempDir()
	next := &closer{}
	fail := errors.New("status 500")
	next.CompleteFunc = func(ctx context.Context, req llm.Request) (llm.Response, error) {
		switch req.Prompt {
		case "reported":
			return llm.Response{Text: "x", InputTokens: 1000, OutputTokens: 24}, nil
		case "fails":
			return llm.Response{}, fail
		}
		return llm.Response{Text: "12345678"}, nil // estimated: (4+8+8)/4 = 5
	}
	c := NewCounter(next, dir, nil)
	now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.Local)
	c.now = func() time.Time { return now }
	ctx := context.Background()
	if _, err := c.Complete(ctx, llm.Request{Task: "extract", System: "sys.", Prompt: "reported"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(ctx, llm.Request{Task: "compact", System: "syst", Prompt: "estimate"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(ctx, llm.Request{Task: "compact", Prompt: "fails"}); !errors.Is(err, fail) {
		t.Fatalf("the error is not passed on: %v", err)
	}
	led, err := state.ReadTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	day := led.Days["2026-05-04"]
	if day["extract"] != (state.Usage{Tokens: 1024, Calls: 1}) || day["compact"] != (state.Usage{Tokens: 5, Calls: 1}) {
		t.Errorf("ledger %+v", led.Days)
	}
	if err := c.Close(); err != nil || !next.closed {
		t.Errorf("Close did not reach the provider: %v", err)
	}
	if err := NewCounter(&llm.Fake{}, dir, nil).Close(); err != nil {
		t.Errorf("Close without a closer: %v", err)
	}
}

func TestSummarizeAndBudget(t *testing.T) {
	now := time.Date(2026, 5, 4, 22, 0, 0, 0, time.Local)
	var led state.Tokens
	for _, c := range []struct {
		daysAgo int
		task    string
		n       int
	}{{0, "extract", 600_000}, {0, "compact", 400_512}, {1, "extract", 10}, {6, "compact", 5}, {7, "extract", 1_000_000}} {
		state.AddTokens(now.AddDate(0, 0, -c.daysAgo), c.task, c.n)(&led)
	}
	r := Summarize(led, 1_000_000, now)
	if r.Today != 1_000_512 || r.TodayByTask["extract"] != 600_000 || r.Last7Days != 1_000_527 || len(r.Days) != WeekDays {
		t.Errorf("report %+v", r)
	}
	if r.Days[0].Date != "2026-04-28" || r.Days[6].Date != "2026-05-04" || r.Days[0].Tokens != 5 {
		t.Errorf("days %+v", r.Days)
	}
	if !r.Paused || !r.ResumesAt.Equal(time.Date(2026, 5, 5, 0, 0, 0, 0, time.Local)) {
		t.Errorf("paused %v until %v", r.Paused, r.ResumesAt)
	}
	if got := r.Tasks(); len(got) != 2 || got[0] != "extract" {
		t.Errorf("tasks %v", got)
	}
	for _, c := range []struct {
		limit int
		at    time.Time
		over  bool
	}{
		{1_000_000, now, true},
		{1_000_513, now, false},
		{0, now, false}, // no limit
		{1_000_000, NextDay(now), false},
		{1_000_000, NextDay(now).Add(-time.Nanosecond), true},
	} {
		if _, over := Spent(led, c.limit, c.at); over != c.over {
			t.Errorf("Spent(limit %d, %v) over = %v", c.limit, c.at, over)
		}
	}
	if r := Summarize(led, 0, now); r.Paused || r.DailyLimit != 0 {
		t.Errorf("no limit: %+v", r)
	}
}

func TestNextDayIsLocalMidnight(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	saved := time.Local
	time.Local = berlin
	defer func() { time.Local = saved }()
	// Clocks go forward at 02:00 on 29 March 2026: that day has 23 hours.
	for _, c := range []struct{ now, want time.Time }{
		{time.Date(2026, 3, 28, 23, 59, 0, 0, berlin), time.Date(2026, 3, 29, 0, 0, 0, 0, berlin)},
		{time.Date(2026, 3, 29, 0, 0, 0, 0, berlin), time.Date(2026, 3, 30, 0, 0, 0, 0, berlin)},
		{time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), time.Date(2026, 3, 30, 0, 0, 0, 0, berlin)},
	} {
		if got := NextDay(c.now); !got.Equal(c.want) {
			t.Errorf("NextDay(%v) = %v, want %v", c.now, got, c.want)
		}
	}
	if got := time.Date(2026, 3, 30, 0, 0, 0, 0, berlin).Sub(time.Date(2026, 3, 29, 0, 0, 0, 0, berlin)); got != 23*time.Hour {
		t.Errorf("the day the clocks change lasts %v", got)
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1_000_512: "1,000,512", -12345: "-12,345"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCounterHoldsTheDailyLimit: with a limit, no call is made once the
// day's tokens reach it (the error says so and matches
// llm.ErrBudgetSpent); a billed empty answer with no usage counts its
// prompt.
func TestCounterHoldsTheDailyLimit(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	next := &llm.Fake{CompleteFunc: func(ctx context.Context, req llm.Request) (llm.Response, error) {
		calls++
		return llm.Response{InputTokens: -1, OutputTokens: -1}, fmt.Errorf("llm compact: %w", llm.ErrBilled)
	}}
	c := NewCounter(next, dir, nil).WithDailyLimit(100)
	now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.Local)
	c.now = func() time.Time { return now }
	req := llm.Request{Task: "compact", Prompt: strings.Repeat("x", 800)}
	if _, err := c.Complete(context.Background(), req); !errors.Is(err, llm.ErrBilled) {
		t.Fatalf("first call: %v", err)
	}
	led, _ := state.ReadTokens(dir)
	if got := led.Total("2026-05-04"); got < 200 {
		t.Fatalf("a billed empty answer counted %d tokens, less than its 800-byte prompt", got)
	}
	_, err := c.Complete(context.Background(), req)
	if !errors.Is(err, llm.ErrBudgetSpent) || calls != 1 || !strings.Contains(err.Error(), "daily token budget spent: 200 of 100 tokens today") {
		t.Fatalf("second call: %d calls made, err %v", calls, err)
	}
}
