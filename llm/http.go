package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	userAgent     = "memoryd"
	taskHeader    = "X-Memoryd-Task"
	maxAnswer     = 16 << 20 // bytes read from an answer
	excerptLen    = 300      // bytes of a failed answer kept in errors and logs
	backoffBase   = 500 * time.Millisecond
	backoffMax    = 30 * time.Second
	retryAfterMax = time.Minute
)

// httpClient is the part the HTTP providers share: headers, timeouts,
// retries, logging and keeping the API key out of both.
type httpClient struct {
	apiKey     string
	timeout    time.Duration
	maxRetries int
	client     *http.Client
	log        *slog.Logger
	// backoff computes the wait before a retry; tests shorten it.
	backoff func(attempt int, retryAfter time.Duration) time.Duration
}

func newHTTPClient(opts Options, log *slog.Logger) *httpClient {
	return &httpClient{
		apiKey:     opts.APIKey,
		timeout:    opts.Timeout,
		maxRetries: opts.MaxRetries,
		client:     &http.Client{},
		log:        log,
		backoff:    backoff,
	}
}

// parseBase checks a provider base URL and trims its trailing slash.
func parseBase(raw string) (string, *url.URL, error) {
	raw = strings.TrimRight(raw, "/")
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, fmt.Errorf("llm base url %q: want http(s)://host[/path]", raw)
	}
	return raw, u, nil
}

// complete sends payload as JSON to endpoint, retrying as the package doc
// describes, decodes the answer with parse and logs the call.
func (c *httpClient) complete(ctx context.Context, req Request, model, endpoint string, header http.Header,
	payload any, parse func([]byte) (Response, error)) (Response, error) {
	start := time.Now()
	body, err := json.Marshal(payload)
	if err != nil {
		return Response{}, fmt.Errorf("encode llm request: %w", err)
	}
	data, attempts, err := c.post(ctx, req.Task, endpoint, header, body)
	var resp Response
	if err == nil {
		resp, err = parse(data)
		if err != nil {
			err = fmt.Errorf("%w (answer: %s)", err, c.excerpt(data))
		}
	}
	attrs := []any{"task", req.Task, "model", model, "duration", time.Since(start).Round(time.Millisecond), "attempts", attempts}
	if err != nil {
		err = c.scrub(fmt.Errorf("llm %s: %w", req.Task, err))
		var se *StatusError
		if errors.As(err, &se) {
			attrs = append(attrs, "status", se.Status, "body", se.Body)
		}
		c.log.Warn("llm call failed", append(attrs, "err", err)...)
		return Response{}, err
	}
	c.log.Info("llm call", append(attrs, "input_tokens", resp.InputTokens, "output_tokens", resp.OutputTokens)...)
	return resp, nil
}

// post makes up to 1+maxRetries attempts and returns the body of the first
// successful answer.
func (c *httpClient) post(ctx context.Context, task, endpoint string, header http.Header, body []byte) ([]byte, int, error) {
	for attempt := 1; ; attempt++ {
		data, retryAfter, err := c.attempt(ctx, task, endpoint, header, body)
		if err == nil {
			return data, attempt, nil
		}
		var re *retryableError
		if !errors.As(err, &re) {
			return nil, attempt, err
		}
		if attempt > c.maxRetries {
			return nil, attempt, fmt.Errorf("giving up after %d attempts: %w", attempt, re.err)
		}
		delay := c.backoff(attempt, retryAfter)
		c.log.Debug("llm retry", "task", task, "attempt", attempt, "delay", delay, "err", c.scrub(re.err))
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, attempt, fmt.Errorf("%w (last: %v)", ctx.Err(), re.err)
		case <-t.C:
		}
	}
}

// retryableError marks a failure worth another attempt.
type retryableError struct{ err error }

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// attempt makes one request bounded by c.timeout.
func (c *httpClient) attempt(ctx context.Context, task, endpoint string, header http.Header, body []byte) ([]byte, time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	for k, v := range header {
		hreq.Header[k] = v
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("User-Agent", userAgent)
	hreq.Header.Set(taskHeader, task)

	resp, err := c.client.Do(hreq)
	var data []byte
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
		resp.Body.Close()
	}
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, 0, ctx.Err()
		case actx.Err() != nil:
			return nil, 0, fmt.Errorf("no answer within %s: %w", c.timeout, context.DeadlineExceeded)
		}
		return nil, 0, &retryableError{err}
	}
	if resp.StatusCode/100 == 2 {
		return data, 0, nil
	}
	se := &StatusError{Status: resp.StatusCode, Body: c.excerpt(data)}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return nil, retryAfter(resp.Header.Get("Retry-After")), &retryableError{se}
	}
	return nil, 0, se
}

// retryAfter parses a Retry-After header given in seconds; -1 when absent
// or not a number of seconds.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return -1
	}
	return min(time.Duration(n)*time.Second, retryAfterMax)
}

// backoff is the wait before retry number attempt (1-based): the server's
// Retry-After when it gave one (>= 0), else an exponential delay from
// backoffBase, capped at backoffMax, with its upper half jittered.
func backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter >= 0 {
		return retryAfter
	}
	d := backoffBase << min(attempt-1, 16)
	d = min(d, backoffMax)
	return d/2 + rand.N(d/2+1)
}

// excerpt returns the start of an answer body on one line, key removed.
func (c *httpClient) excerpt(data []byte) string {
	s := strings.Join(strings.Fields(string(data)), " ")
	s = c.redact(s)
	if len(s) > excerptLen {
		s = s[:excerptLen] + "…"
	}
	return s
}

func (c *httpClient) redact(s string) string {
	if c.apiKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.apiKey, "[redacted]")
}

// scrub returns err, or an error with the same text minus the API key when
// the key appears in it. The replacement still matches context.Canceled,
// context.DeadlineExceeded and *StatusError with errors.Is/As, but does not
// unwrap to the original error (whose text holds the key).
func (c *httpClient) scrub(err error) error {
	if err == nil || c.apiKey == "" || !strings.Contains(err.Error(), c.apiKey) {
		return err
	}
	r := &redactedError{msg: c.redact(err.Error())}
	for _, target := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, target) {
			r.wrapped = append(r.wrapped, target)
		}
	}
	var se *StatusError
	if errors.As(err, &se) {
		r.wrapped = append(r.wrapped, &StatusError{Status: se.Status, Body: c.redact(se.Body)})
	}
	return r
}

type redactedError struct {
	msg     string
	wrapped []error
}

func (e *redactedError) Error() string   { return e.msg }
func (e *redactedError) Unwrap() []error { return e.wrapped }
