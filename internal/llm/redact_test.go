package llm

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

const secretKey = "sk-memoryd-TEST-9f8e7d6c5b4a"

// echoKey answers with the credentials the request carried, the way a
// careless proxy or a debugging server might.
func echoKey(r llmtest.Recorded) string {
	return `{"error":{"message":"invalid key ` + r.Header.Get("Authorization") + r.Header.Get("x-api-key") + `"}}`
}

// TestKeyNeverLogged makes servers fail in every way with a distinctive
// key and checks that the key is absent from all log output and errors.
func TestKeyNeverLogged(t *testing.T) {
	var n atomic.Int32
	cases := map[string]func(llmtest.Recorded) llmtest.Reply{
		"401 echo":       func(r llmtest.Recorded) llmtest.Reply { return llmtest.Error(401, echoKey(r)) },
		"500 echo retry": func(r llmtest.Recorded) llmtest.Reply { return llmtest.Error(500, echoKey(r)) },
		"429 then 400": func(r llmtest.Recorded) llmtest.Reply {
			if n.Add(1)%2 == 1 {
				return llmtest.Error(429, echoKey(r)).WithHeader("Retry-After", "0")
			}
			return llmtest.Error(400, echoKey(r))
		},
		"200 garbage":  func(r llmtest.Recorded) llmtest.Reply { return llmtest.Error(200, "<html>"+echoKey(r)) },
		"200 no text":  func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text("") },
		"slow timeout": func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text("x").After(time.Minute) },
	}
	for name, handler := range cases {
		for _, provider := range []string{"openai", "anthropic"} {
			t.Run(name+"/"+provider, func(t *testing.T) {
				srv := llmtest.NewServer(t, handler)
				base := srv.URL
				if provider == "openai" {
					base = srv.OpenAIURL()
				}
				log, logs := newLogger()
				c := newHTTPProvider(t, Options{Provider: provider, BaseURL: base, APIKey: secretKey,
					MaxRetries: 2, Timeout: 300 * time.Millisecond, Logger: log})
				_, err := c.Complete(context.Background(), extract)
				if err == nil {
					t.Fatal("no error")
				}
				checkNoKey(t, err, logs.String())
				if len(srv.Prompts()) == 0 || !strings.Contains(srv.Prompts()[0].Header.Get("Authorization")+srv.Prompts()[0].Header.Get("x-api-key"), secretKey) {
					t.Fatal("the key was not sent, so the test proves nothing")
				}
			})
		}
	}
}

// TestKeyInURLScrubbed covers a key the user put into the base URL (some
// gateways take it as a query parameter): Go's transport errors quote the
// URL.
func TestKeyInURLScrubbed(t *testing.T) {
	log, logs := newLogger()
	c := newHTTPProvider(t, Options{Provider: "openai", BaseURL: "http://" + closedPort(t) + "/v1?key=" + secretKey,
		APIKey: secretKey, MaxRetries: 1, Logger: log})
	_, err := c.Complete(context.Background(), extract)
	if err == nil {
		t.Fatal("no error")
	}
	checkNoKey(t, err, logs.String())
	if !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("error %q: expected the scrubbed URL", err)
	}
}

func TestScrubKeepsClassification(t *testing.T) {
	h := &httpClient{apiKey: secretKey}
	err := h.scrub(errors.Join(errors.New("post http://x?k="+secretKey), context.DeadlineExceeded,
		&StatusError{Status: 502, Body: "bad " + secretKey}))
	var se *StatusError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &se) || se.Status != 502 || strings.Contains(se.Body, secretKey) {
		t.Errorf("scrubbed error lost its class or kept the key: %v", err)
	}
	checkNoKey(t, err, "")
}

func checkNoKey(t *testing.T, err error, logs string) {
	t.Helper()
	if strings.Contains(err.Error(), secretKey) {
		t.Errorf("error holds the key: %v", err)
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), secretKey) {
			t.Errorf("a wrapped error holds the key: %v", e)
		}
	}
	if strings.Contains(logs, secretKey) {
		t.Errorf("logs hold the key:\n%s", logs)
	}
}
