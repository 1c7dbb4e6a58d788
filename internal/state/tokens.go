package state

import (
	"fmt"
	"time"
)

// Tokens is the LLM token ledger (TokensFile): the tokens and calls of
// every model call memoryd made for this memory folder, per local calendar
// day ("2006-01-02", see Day) and per task ("extract", "compact"). Every
// process that asks a model records its calls in it (cost.Counter); the
// daemon reads it to pause its own jobs once the day's budget is spent, and
// `memoryd status` shows it.
type Tokens struct {
	Days map[string]map[string]Usage `json:"days"`
}

// Usage is what one task spent on one day.
type Usage struct {
	Tokens int `json:"tokens"`
	Calls  int `json:"calls"`
}

// TokensKeepDays is how many days before today the ledger keeps; older
// days are dropped whenever a call is recorded.
const TokensKeepDays = 31

// Day is the ledger's key for t: its date in the local time zone. A day
// runs from local midnight to local midnight.
func Day(t time.Time) string { return t.Local().Format(time.DateOnly) }

// ReadTokens returns the ledger; a missing file is an empty ledger.
func ReadTokens(dir string) (Tokens, error) {
	var t Tokens
	err := ReadJSON(dir, TokensFile, &t)
	if IsNotExist(err) {
		err = nil
	}
	return t, err
}

// UpdateTokens changes the ledger under its own lock (a read-modify-write,
// as UpdateCompaction), so the daemon and the commands a person runs can
// record calls at the same time without losing one. A damaged file is
// replaced by an empty ledger, and the error says so.
func UpdateTokens(dir string, change func(*Tokens)) (Tokens, error) {
	lock, err := LockWait(dir, TokensFile+".lock")
	if err != nil {
		return Tokens{}, err
	}
	defer lock.Unlock()
	var t Tokens
	if err = ReadJSON(dir, TokensFile, &t); IsNotExist(err) {
		err = nil
	} else if err != nil {
		t = Tokens{}
		err = fmt.Errorf("token ledger unreadable, starting afresh: %w", err)
	}
	change(&t)
	if werr := WriteJSON(dir, TokensFile, t); werr != nil {
		return t, werr
	}
	return t, err
}

// AddTokens is the change that records one call of task that spent n
// tokens at now, and drops the days more than TokensKeepDays before it.
func AddTokens(now time.Time, task string, n int) func(*Tokens) {
	return func(t *Tokens) {
		if t.Days == nil {
			t.Days = map[string]map[string]Usage{}
		}
		oldest := Day(now.AddDate(0, 0, -TokensKeepDays))
		for d := range t.Days {
			if d < oldest {
				delete(t.Days, d)
			}
		}
		day := Day(now)
		if t.Days[day] == nil {
			t.Days[day] = map[string]Usage{}
		}
		u := t.Days[day][task]
		u.Tokens += max(n, 0) // a call never lowers the count
		u.Calls++
		t.Days[day][task] = u
	}
}

// Total is the tokens of every task on day.
func (t Tokens) Total(day string) int {
	n := 0
	for _, u := range t.Days[day] {
		n += u.Tokens
	}
	return n
}
