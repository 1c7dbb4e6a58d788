package state

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTokensDayRolloverAndPruning(t *testing.T) {
	dir := t.TempDir()
	late := time.Date(2026, 3, 10, 23, 59, 59, 0, time.Local)
	for _, c := range []struct {
		at   time.Time
		task string
		n    int
	}{
		{late, "extract", 100},
		{late, "extract", 50},
		{late, "compact", 7},
		{late.Add(time.Second), "extract", 1000}, // local midnight: a new day
	} {
		if _, err := UpdateTokens(dir, AddTokens(c.at, c.task, c.n)); err != nil {
			t.Fatal(err)
		}
	}
	led, err := ReadTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := led.Days["2026-03-10"]["extract"]; got != (Usage{Tokens: 150, Calls: 2}) {
		t.Errorf("extract on the first day: %+v", got)
	}
	if led.Total("2026-03-10") != 157 || led.Total("2026-03-11") != 1000 || led.Total("2026-03-12") != 0 {
		t.Errorf("totals: %+v", led.Days)
	}
	// A call 31 days after the first day keeps it; one more day drops it.
	UpdateTokens(dir, AddTokens(late.AddDate(0, 0, TokensKeepDays), "extract", 1))
	if led, _ = ReadTokens(dir); led.Total("2026-03-10") != 157 {
		t.Errorf("a day %d days back was dropped: %v", TokensKeepDays, led.Days)
	}
	UpdateTokens(dir, AddTokens(late.AddDate(0, 0, TokensKeepDays+1), "extract", 1))
	if led, _ = ReadTokens(dir); led.Total("2026-03-10") != 0 || led.Total("2026-03-11") != 1000 || len(led.Days) != 3 {
		t.Errorf("after pruning: %v", led.Days)
	}
	fi, _ := os.Stat(filepath.Join(dir, TokensFile))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

func TestTokensMissingAndDamaged(t *testing.T) {
	dir := t.TempDir()
	if led, err := ReadTokens(dir); err != nil || len(led.Days) != 0 {
		t.Fatalf("missing ledger: %+v %v", led, err)
	}
	os.WriteFile(filepath.Join(dir, TokensFile), []byte("{not json"), 0o600)
	led, err := UpdateTokens(dir, AddTokens(time.Now(), "compact", 9))
	if err == nil || !strings.Contains(err.Error(), "starting afresh") || led.Total(Day(time.Now())) != 9 {
		t.Fatalf("damaged ledger: %+v %v", led, err)
	}
	if led, err = ReadTokens(dir); err != nil || led.Total(Day(time.Now())) != 9 {
		t.Fatalf("after replacing the damaged ledger: %+v %v", led, err)
	}
}

// TestTokensTwoProcesses has two child processes (this test binary) and
// this one record calls into one ledger at the same time: none is lost.
func TestTokensTwoProcesses(t *testing.T) {
	const calls = 40
	if d := os.Getenv("STATE_TOKENS_CHILD"); d != "" {
		for range calls {
			if _, err := UpdateTokens(d, AddTokens(time.Now(), os.Getenv("STATE_TOKENS_TASK"), 3)); err != nil {
				fmt.Println("ERR", err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan string, 2)
	for _, task := range []string{"extract", "compact"} {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestTokensTwoProcesses$")
			cmd.Env = append(os.Environ(), "STATE_TOKENS_CHILD="+dir, "STATE_TOKENS_TASK="+task)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Sprintf("%s child: %v\n%s", task, err, out)
			}
		})
	}
	for range calls {
		if _, err := UpdateTokens(dir, AddTokens(time.Now(), "extract", 1)); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	led, err := ReadTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ex, co Usage
	for _, day := range led.Days { // the test may straddle midnight
		ex.Tokens, ex.Calls = ex.Tokens+day["extract"].Tokens, ex.Calls+day["extract"].Calls
		co.Tokens, co.Calls = co.Tokens+day["compact"].Tokens, co.Calls+day["compact"].Calls
	}
	if ex != (Usage{Tokens: calls*3 + calls, Calls: 2 * calls}) || co != (Usage{Tokens: calls * 3, Calls: calls}) {
		t.Fatalf("extract %+v, compact %+v; want %d calls each child and %d here", ex, co, calls, calls)
	}
}
