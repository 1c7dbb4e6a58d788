// Package cost counts what the language model costs: every call's tokens
// (as the provider reported them, else a token per four characters) go into
// the state folder's ledger (state.Tokens), per local day and task. It
// provides the Completer that records them, the daily budget's arithmetic,
// and the summary `memoryd status` shows. When to pause lives in daemon.
package cost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/state"
)

// Counter is an llm.Completer that passes every call on and records what
// it spent in the ledger of a state folder. Safe for concurrent use.
//
// A call that returns an answer is counted with Response.Tokens, and so is
// one the provider answered with nothing usable (llm.ErrBilled: an empty
// answer counts at least its prompt); another failure is counted only with
// the tokens its provider reported: a refused connection, a 429 or a
// timeout are not billed as a prompt the model read.
//
// With a daily limit (WithDailyLimit), every call is checked against the
// day's tokens first — each batch of a compaction pass, each extraction —
// and none is made once they reach it (an error matching
// llm.ErrBudgetSpent).
type Counter struct {
	next  llm.Completer
	dir   string
	log   *slog.Logger
	now   func() time.Time
	limit int // the day's tokens at which calls stop; 0: no limit
}

var _ llm.Completer = (*Counter)(nil)

// NewCounter wraps next; stateDir holds the ledger. A nil log discards.
func NewCounter(next llm.Completer, stateDir string, log *slog.Logger) *Counter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Counter{next: next, dir: stateDir, log: log.With("component", "cost"), now: time.Now}
}

// WithDailyLimit makes c refuse calls once the day's tokens reach limit
// (llm.daily_tokens; 0 or less: no limit) and returns c. The daemon's jobs
// use it; a person's commands are not limited, but counted.
func (c *Counter) WithDailyLimit(limit int) *Counter {
	c.limit = max(limit, 0)
	return c
}

// BudgetError is the error of a call not made because the day's tokens
// reached the limit; it matches llm.ErrBudgetSpent.
type BudgetError struct {
	Spent, Limit int
	ResumesAt    time.Time
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("daily token budget spent: %s of %s tokens today (llm.daily_tokens); no model call until %s",
		Group(e.Spent), Group(e.Limit), e.ResumesAt.Format("2006-01-02 15:04"))
}

// Is makes a BudgetError match llm.ErrBudgetSpent.
func (e *BudgetError) Is(target error) bool { return target == llm.ErrBudgetSpent }

// Complete checks the day's budget, asks next and records the call. A
// failure to record is logged and does not fail the call: the answer has
// been paid for already. An unreadable ledger does not stop the call.
func (c *Counter) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if c.limit > 0 {
		led, err := state.ReadTokens(c.dir)
		if err != nil {
			c.log.Warn("token ledger unreadable; the daily budget is not checked for this call", "task", req.Task, "err", err)
		} else if spent, over := Spent(led, c.limit, c.now()); over {
			return llm.Response{}, &BudgetError{Spent: spent, Limit: c.limit, ResumesAt: NextDay(c.now())}
		}
	}
	resp, err := c.next.Complete(ctx, req)
	n := max(resp.InputTokens, 0) + max(resp.OutputTokens, 0)
	if err == nil || errors.Is(err, llm.ErrBilled) {
		n = resp.Tokens(req)
	}
	if n > 0 || err == nil {
		if _, rerr := state.UpdateTokens(c.dir, state.AddTokens(c.now(), req.Task, n)); rerr != nil {
			c.log.Warn("record the tokens of an LLM call", "task", req.Task, "tokens", n, "err", rerr)
		}
	}
	return resp, err
}

// Close closes next when it is an io.Closer (the opencode provider).
func (c *Counter) Close() error {
	if cl, ok := c.next.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// NextDay is when the local day after now's begins: the moment a spent
// daily budget is available again.
func NextDay(now time.Time) time.Time {
	y, m, d := now.Local().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.Local)
}

// Spent reports the tokens recorded on now's local day and whether they
// reach limit (limit 0 or less: no limit, never spent).
func Spent(t state.Tokens, limit int, now time.Time) (tokens int, over bool) {
	tokens = t.Total(state.Day(now))
	return tokens, limit > 0 && tokens >= limit
}

// WeekDays is how many days, today included, "the last 7 days" covers.
const WeekDays = 7

// Report is the ledger as `memoryd status` shows it.
type Report struct {
	Today       int            `json:"today"`
	TodayByTask map[string]int `json:"todayByTask"`
	// Last7Days sums today and the six days before it.
	Last7Days int   `json:"last7Days"`
	Days      []Day `json:"days"` // those seven days, oldest first
	// DailyLimit is llm.daily_tokens; 0 means no limit.
	DailyLimit int `json:"dailyLimit"`
	// Paused says today's tokens reached the limit: the daemon starts no
	// extraction or compaction until ResumesAt (the next local midnight).
	Paused    bool      `json:"paused"`
	ResumesAt time.Time `json:"resumesAt,omitzero"`
}

// Day is one day's tokens.
type Day struct {
	Date   string `json:"date"`
	Tokens int    `json:"tokens"`
}

// Summarize makes the report for now.
func Summarize(t state.Tokens, limit int, now time.Time) Report {
	r := Report{TodayByTask: map[string]int{}, DailyLimit: max(limit, 0)}
	for task, u := range t.Days[state.Day(now)] {
		r.TodayByTask[task] = u.Tokens
	}
	r.Today, r.Paused = Spent(t, limit, now)
	if r.Paused {
		r.ResumesAt = NextDay(now)
	}
	y, m, d := now.Local().Date()
	for i := WeekDays - 1; i >= 0; i-- {
		day := state.Day(time.Date(y, m, d-i, 12, 0, 0, 0, time.Local))
		n := t.Total(day)
		r.Days = append(r.Days, Day{Date: day, Tokens: n})
		r.Last7Days += n
	}
	return r
}

// Tasks lists the tasks of TodayByTask, most tokens first.
func (r Report) Tasks() []string {
	tasks := make([]string, 0, len(r.TodayByTask))
	for task := range r.TodayByTask {
		tasks = append(tasks, task)
	}
	sort.Slice(tasks, func(i, j int) bool {
		a, b := r.TodayByTask[tasks[i]], r.TodayByTask[tasks[j]]
		if a != b {
			return a > b
		}
		return tasks[i] < tasks[j]
	})
	return tasks
}

// Group writes n with thousands separators, as status shows tokens:
// 1000512 is "1,000,512".
func Group(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
