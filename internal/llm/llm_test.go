package llm

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// logBuffer collects log output from any goroutine.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newLogger() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

func TestNewNone(t *testing.T) {
	c, err := New(Options{Provider: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), Request{Task: "extract"}); !errors.Is(err, ErrDisabled) {
		t.Errorf("got %v, want ErrDisabled", err)
	}
}

func TestNewRejects(t *testing.T) {
	for _, o := range []Options{
		{Provider: ""},
		{Provider: "gemini"},
		{Provider: "openai", BaseURL: "ftp://x"},
		{Provider: "anthropic", BaseURL: "localhost:8080"},
		{Provider: "opencode"}, // no state dir
		{Provider: "opencode", StateDir: t.TempDir(), OpenCodeBin: "/nonexistent/opencode"},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func TestRequestCheck(t *testing.T) {
	c, err := New(Options{Provider: "openai", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Request{
		{Task: "", Model: "m"},
		{Task: "Extract", Model: "m"},
		{Task: "ex tract", Model: "m"},
		{Task: "extract\r\nX-Evil: 1", Model: "m"},
		{Task: "extract", Model: ""},
	} {
		if _, err := c.Complete(context.Background(), r); err == nil {
			t.Errorf("Complete(%+v) succeeded", r)
		}
	}
}

func TestFake(t *testing.T) {
	var f Fake
	if r, err := f.Complete(context.Background(), Request{}); err != nil || r.Text != "" {
		t.Errorf("zero Fake: %+v %v", r, err)
	}
	f.CompleteFunc = func(_ context.Context, req Request) (Response, error) { return Response{Text: req.Prompt}, nil }
	if r, _ := f.Complete(context.Background(), Request{Prompt: "echo"}); r.Text != "echo" {
		t.Errorf("got %q", r.Text)
	}
}

func TestBackoff(t *testing.T) {
	c := &httpClient{retryBase: DefaultRetryBase} // real randomness
	for attempt := 1; attempt <= 20; attempt++ {
		full := min(DefaultRetryBase<<min(attempt-1, 16), retryMax)
		for _, ra := range []time.Duration{-1, 0} { // no Retry-After, or "0": both back off
			for range 50 {
				d := c.retryDelay(attempt, ra)
				if d < full/2 || d > full {
					t.Fatalf("attempt %d: %s outside [%s, %s]", attempt, d, full/2, full)
				}
			}
		}
	}
	if d := c.retryDelay(1, 7*time.Second); d != 7*time.Second {
		t.Errorf("Retry-After ignored: %s", d)
	}
}

func TestRetryAfter(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": -1, "abc": -1, "-3": -1, "0": 0, "2": 2 * time.Second, " 5 ": 5 * time.Second,
		"3600": retryAfterMax, "9223372037": retryAfterMax, "Wed, 21 Oct 2015 07:28:00 GMT": -1,
	} {
		if got := retryAfter(in); got != want {
			t.Errorf("retryAfter(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestModelPrefix(t *testing.T) {
	for _, tc := range []struct {
		provider, base, prefix string
	}{
		{"openai", "", "openai/"},
		{"openai", "https://api.openai.com/v1/", "openai/"},
		{"openai", "http://127.0.0.1:8000/v1", ""},
		{"openai", "https://openrouter.ai/api/v1", ""},
		{"anthropic", "", "anthropic/"},
		{"anthropic", "https://proxy.example/v1", ""},
	} {
		c, err := New(Options{Provider: tc.provider, BaseURL: tc.base})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		switch c := c.(type) {
		case *openAI:
			got = c.prefix
		case *anthropic:
			got = c.prefix
		}
		if got != tc.prefix {
			t.Errorf("%s %q: prefix %q, want %q", tc.provider, tc.base, got, tc.prefix)
		}
	}
}

func TestEndpoints(t *testing.T) {
	for _, tc := range []struct{ provider, base, want string }{
		{"openai", "", "https://api.openai.com/v1/chat/completions"},
		{"openai", "http://localhost:11434/v1/", "http://localhost:11434/v1/chat/completions"},
		{"anthropic", "", "https://api.anthropic.com/v1/messages"},
		{"anthropic", "https://proxy.example/v1", "https://proxy.example/v1/messages"},
		{"anthropic", "https://proxy.example/anthropic/", "https://proxy.example/anthropic/v1/messages"},
	} {
		c, err := New(Options{Provider: tc.provider, BaseURL: tc.base})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		switch c := c.(type) {
		case *openAI:
			got = c.endpoint
		case *anthropic:
			got = c.endpoint
		}
		if got != tc.want {
			t.Errorf("%s %q: endpoint %q, want %q", tc.provider, tc.base, got, tc.want)
		}
	}
}
