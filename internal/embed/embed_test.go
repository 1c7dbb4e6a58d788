package embed_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/embed"
	"github.com/memoryd/memoryd/internal/embed/embedtest"
	"github.com/memoryd/memoryd/internal/state"
)

func newClient(t *testing.T, s *embedtest.Server, mod func(*embed.Options)) (*embed.Client, string) {
	t.Helper()
	dir := t.TempDir()
	o := embed.Options{BaseURL: s.URL, Model: "fake", APIKey: "sk-secret-key", StateDir: dir, DailyTokens: 1000}
	if mod != nil {
		mod(&o)
	}
	c, err := embed.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Wait) // before dir is removed
	return c, dir
}

func todayTokens(t *testing.T, dir string) int {
	t.Helper()
	led, err := state.ReadTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	return led.Days[state.Day(time.Now())][embed.Task].Tokens
}

func TestBatchAndLedger(t *testing.T) {
	s := embedtest.New(t)
	c, dir := newClient(t, s, nil)
	vs, err := c.Batch(context.Background(), []string{"alpha beta", "gamma"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || len(vs[0]) != 16 || len(vs[1]) != 16 {
		t.Fatalf("vectors: %v", vs)
	}
	// No usage reported: a token per four characters, rounded up.
	if got := todayTokens(t, dir); got != 3+2 {
		t.Errorf("ledger: %d tokens, want 5", got)
	}
	s.SetTokens(40)
	if _, err := c.Query(context.Background(), "delta"); err != nil {
		t.Fatal(err)
	}
	c.Wait() // a query's tokens are recorded after it returns
	if got := todayTokens(t, dir); got != 45 {
		t.Errorf("ledger: %d tokens, want 45 (the server's 40 added)", got)
	}
}

func TestOverBudgetMakesNoCall(t *testing.T) {
	s := embedtest.New(t)
	c, dir := newClient(t, s, nil)
	if _, err := state.UpdateTokens(dir, state.AddTokens(time.Now(), "extract", 1000)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Query(context.Background(), "anything")
	if !errors.Is(err, embed.ErrOverBudget) {
		t.Fatalf("err %v, want ErrOverBudget", err)
	}
	if s.Calls() != 0 {
		t.Errorf("%d calls over budget", s.Calls())
	}
}

func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*embedtest.Server)
		want string
	}{
		{"slow", func(s *embedtest.Server) { s.SetDelay(2 * time.Second) }, "no answer within"},
		{"garbage", func(s *embedtest.Server) { s.SetBroken("<html>sk-secret-key</html>") }, "unreadable answer"},
		{"too few vectors", func(s *embedtest.Server) { s.SetBroken(`{"data":[]}`) }, "0 vectors for 1 texts"},
		{"mixed dimensions", func(s *embedtest.Server) {
			s.SetBroken(`{"data":[{"embedding":[1,2],"index":0},{"embedding":[1],"index":1}]}`)
		}, "dimensions"},
		{"down", func(s *embedtest.Server) { s.Close() }, "embeddings:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := embedtest.New(t)
			c, _ := newClient(t, s, func(o *embed.Options) { o.Timeout = 100 * time.Millisecond })
			tc.set(s)
			texts := []string{"one"}
			if tc.name == "mixed dimensions" {
				texts = append(texts, "two")
			}
			start := time.Now()
			var err error
			if len(texts) == 1 {
				_, err = c.Query(context.Background(), texts[0])
			} else {
				_, err = c.Batch(context.Background(), texts)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "sk-secret-key") {
				t.Errorf("the key in the error: %v", err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestNewChecks(t *testing.T) {
	if _, err := embed.New(embed.Options{BaseURL: "localhost:11434", Model: "m"}); err == nil {
		t.Error("no error for a base URL without a scheme")
	}
	if _, err := embed.New(embed.Options{BaseURL: "http://127.0.0.1:1/v1"}); err == nil {
		t.Error("no error without a model")
	}
}
