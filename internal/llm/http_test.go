package llm

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// newHTTPProvider builds a provider through New with a short backoff
// (unless opts sets one).
func newHTTPProvider(t *testing.T, opts Options) Completer {
	t.Helper()
	if opts.RetryBase == 0 {
		opts.RetryBase = 5 * time.Millisecond
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var extract = Request{Task: "extract", Model: "openai/gpt-5-mini", System: "You extract facts.", Prompt: "The transcript.", JSON: true}

func TestOpenAIComplete(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Text(`{"memories":[]}`).WithTokens(120, 8)
	})
	log, logs := newLogger()
	c := newHTTPProvider(t, Options{Provider: "openai", BaseURL: srv.OpenAIURL(), APIKey: "k-123", Logger: log})
	resp, err := c.Complete(context.Background(), extract)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"memories":[]}` || resp.InputTokens != 120 || resp.OutputTokens != 8 {
		t.Errorf("response %+v", resp)
	}
	r := srv.Prompts()[0]
	if r.Path != "/v1/chat/completions" || r.Task != "extract" || r.Header.Get("User-Agent") != "memoryd" ||
		r.Header.Get("Authorization") != "Bearer k-123" {
		t.Errorf("request %s headers %v", r.Path, r.Header)
	}
	// A server other than api.openai.com gets the model name as configured.
	if r.Model != "openai/gpt-5-mini" || r.System != extract.System || r.User != extract.Prompt || r.Stream {
		t.Errorf("recorded %+v", r)
	}
	if rf, _ := r.Body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format %v", r.Body["response_format"])
	}
	line := logs.String()
	for _, want := range []string{"component=llm", "provider=openai", "task=extract", "model=openai/gpt-5-mini",
		"input_tokens=120", "output_tokens=8", "attempts=1", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
}

func TestOpenAIPlainNoKey(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	c := newHTTPProvider(t, Options{Provider: "openai", BaseURL: srv.OpenAIURL()})
	resp, err := c.Complete(context.Background(), Request{Task: "compact", Model: "llama3", Prompt: "hi"})
	if err != nil || resp.Text != "ok" {
		t.Fatalf("%+v %v", resp, err)
	}
	r := srv.Prompts()[0]
	if _, ok := r.Header["Authorization"]; ok {
		t.Error("Authorization sent without a key")
	}
	if _, ok := r.Body["response_format"]; ok {
		t.Error("response_format sent without JSON")
	}
	if msgs, _ := r.Body["messages"].([]any); len(msgs) != 1 || r.Task != "compact" {
		t.Errorf("messages %v, task %q", r.Body["messages"], r.Task)
	}
}

func TestAnthropicComplete(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Text(`{"ops":[]}`).WithTokens(50, 4)
	})
	c := newHTTPProvider(t, Options{Provider: "anthropic", BaseURL: srv.URL, APIKey: "ak-1"})
	req := extract
	req.Task, req.Model = "compact", "claude-haiku-4-5"
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"ops":[]}` || resp.InputTokens != 50 || resp.OutputTokens != 4 {
		t.Errorf("response %+v", resp)
	}
	r := srv.Prompts()[0]
	if r.API != "anthropic" || r.Path != "/v1/messages" || r.Task != "compact" || r.Header.Get("x-api-key") != "ak-1" ||
		r.Header.Get("anthropic-version") != "2023-06-01" || r.Header.Get("User-Agent") != "memoryd" {
		t.Errorf("request %s %v", r.Path, r.Header)
	}
	if !strings.HasPrefix(r.System, req.System) || !strings.Contains(r.System, "JSON") || r.User != req.Prompt ||
		r.Model != "claude-haiku-4-5" || r.Body["max_tokens"] != float64(anthropicMaxTokens) {
		t.Errorf("recorded %+v", r)
	}
}

func TestParseAnthropic(t *testing.T) {
	resp, err := parseAnthropic([]byte(`{"content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"a"},{"type":"text","text":"b"}],
		"usage":{"input_tokens":3,"cache_read_input_tokens":10,"cache_creation_input_tokens":2,"output_tokens":5}}`))
	if err != nil || resp.Text != "ab" || resp.InputTokens != 15 || resp.OutputTokens != 5 {
		t.Errorf("%+v %v", resp, err)
	}
	if _, err := parseAnthropic([]byte(`{"content":[],"stop_reason":"max_tokens"}`)); err == nil || !strings.Contains(err.Error(), "max_tokens") {
		t.Errorf("empty answer: %v", err)
	}
}

func TestParseOpenAI(t *testing.T) {
	for body, want := range map[string]string{
		`{"choices":[]}`: "no choices",
		`{"choices":[{"message":{"content":null,"refusal":"no way"}}]}`:     "refused: no way",
		`{"choices":[{"message":{"content":""},"finish_reason":"length"}]}`: "length",
		`not json`: "decode",
	} {
		if _, err := parseOpenAI([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

func TestRetry429ThenSuccess(t *testing.T) {
	var n atomic.Int32
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		if n.Add(1) == 1 {
			return llmtest.Error(429, "").WithHeader("Retry-After", "0")
		}
		return llmtest.Text("done")
	})
	log, logs := newLogger()
	c := newHTTPProvider(t, Options{Provider: "openai", BaseURL: srv.OpenAIURL(), Logger: log})
	resp, err := c.Complete(context.Background(), extract)
	if err != nil || resp.Text != "done" {
		t.Fatalf("%+v %v", resp, err)
	}
	if got := len(srv.Prompts()); got != 2 {
		t.Errorf("%d requests, want 2", got)
	}
	if !strings.Contains(logs.String(), "attempts=2") {
		t.Errorf("log %q", logs.String())
	}
}

func TestServerErrorEveryTime(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Error(503, "") })
	log, logs := newLogger()
	c := newHTTPProvider(t, Options{Provider: "openai", BaseURL: srv.OpenAIURL(), MaxRetries: 2, Logger: log})
	_, err := c.Complete(context.Background(), extract)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 503 || !strings.Contains(se.Body, "llmtest: status 503") {
		t.Fatalf("error %v, want a *StatusError 503", err)
	}
	if got := len(srv.Prompts()); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
	l := logs.String()
	if !strings.Contains(l, "llm call failed") || !strings.Contains(l, "status=503") || !strings.Contains(l, "attempts=3") {
		t.Errorf("log %q", l)
	}
}

func TestNoRetryOnClientError(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Error(400, `{"error":{"message":"bad model"}}`)
	})
	c := newHTTPProvider(t, Options{Provider: "openai", BaseURL: srv.OpenAIURL()})
	_, err := c.Complete(context.Background(), extract)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 400 || !strings.Contains(err.Error(), "bad model") {
		t.Fatalf("error %v", err)
	}
	if got := len(srv.Prompts()); got != 1 {
		t.Errorf("%d requests, want 1", got)
	}
}

func TestTimeout(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text("late").After(time.Minute) })
	c := newHTTPProvider(t, Options{Provider: "anthropic", BaseURL: srv.URL, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := c.Complete(context.Background(), extract)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "200ms") {
		t.Fatalf("error %v, want a timeout", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %s", d)
	}
	if got := len(srv.Prompts()); got != 1 {
		t.Errorf("%d requests, want 1 (a timed-out attempt is not retried)", got)
	}
}

func TestCallerContextCancelled(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Error(500, "") })
	c := newHTTPProvider(t, Options{Provider: "openai", BaseURL: srv.OpenAIURL(), RetryBase: time.Hour}) // waits 15-30 s
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // cancel while Complete waits out its backoff
		for deadline := time.Now().Add(20 * time.Second); len(srv.Prompts()) == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := c.Complete(ctx, extract); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// closedPort returns the address of a port nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestConnectionRefused(t *testing.T) {
	log, logs := newLogger()
	c := newHTTPProvider(t, Options{Provider: "openai", BaseURL: "http://" + closedPort(t) + "/v1", MaxRetries: 2, Logger: log})
	_, err := c.Complete(context.Background(), extract)
	if err == nil || !strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Fatalf("error %v", err)
	}
	if l := logs.String(); strings.Count(l, "llm retry") != 2 || !strings.Contains(l, "attempts=3") {
		t.Errorf("log %q", l)
	}
}
