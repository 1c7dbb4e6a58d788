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

	"github.com/memoryd/memoryd/internal/backoff"
)

const (
	userAgent     = "memoryd"
	taskHeader    = "X-Memoryd-Task"
	maxAnswer     = 16 << 20         // bytes read from an answer
	excerptLen    = 300              // bytes of a failed answer kept in errors and logs
	retryMax      = 30 * time.Second // longest backoff between attempts
	retryAfterMax = time.Minute      // longest wait a server's Retry-After gets
)

// httpClient is the part the HTTP providers share: headers, timeouts,
// retries, logging and keeping the API key out of both.
type httpClient struct {
	apiKey     string
	timeout    time.Duration
	maxRetries int
	retryBase  time.Duration
	client     *http.Client
	log        *slog.Logger
	// rand jitters the waits between attempts, in [0, 1); nil means
	// math/rand/v2. Tests set it to get exact waits.
	rand func() float64
}

func newHTTPClient(opts Options, log *slog.Logger) *httpClient {
	return &httpClient{
		apiKey:     opts.APIKey,
		timeout:    opts.Timeout,
		maxRetries: opts.MaxRetries,
		retryBase:  opts.RetryBase,
		client:     &http.Client{},
		log:        log,
	}
}

// httpAPI is what the HTTP providers share: the client, the endpoint and
// the prefix stripped from model names (see the package doc).
type httpAPI struct {
	http     *httpClient
	endpoint string
	prefix   string // "<vendor>/" when talking to the vendor's own API, else ""
}

// newHTTPAPI checks opts.BaseURL (defaultBase when empty) and returns the
// shared part of a provider with endpoint set to the trimmed base URL, which
// the provider completes. Model names lose the prefix vendor+"/" only when
// the base URL's host is vendorHost.
func newHTTPAPI(opts Options, log *slog.Logger, defaultBase, vendorHost, vendor string) (httpAPI, error) {
	base := opts.BaseURL
	if base == "" {
		base = defaultBase
	}
	base, u, err := parseBase(base)
	if err != nil {
		return httpAPI{}, err
	}
	a := httpAPI{http: newHTTPClient(opts, log), endpoint: base}
	if u.Hostname() == vendorHost {
		a.prefix = vendor + "/"
	}
	return a, nil
}

// buildFunc makes a provider's request body and headers (authentication
// included) for req, with model as the name to send.
type buildFunc func(req Request, model string) (payload any, header http.Header)

// complete is the body of every HTTP provider's Complete: it checks req,
// strips the provider's model prefix, and sends what build makes of the
// request, decoding the answer with parse.
func (a *httpAPI) complete(ctx context.Context, req Request, build buildFunc, parse func([]byte) (Response, error)) (Response, error) {
	if err := req.check(); err != nil {
		return Response{}, err
	}
	model := strings.TrimPrefix(req.Model, a.prefix) // a no-op when prefix is ""
	payload, header := build(req, model)
	return a.http.complete(ctx, req, model, a.endpoint, header, payload, parse)
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
			// Answered, so billed: resp holds what usage it reported.
			err = billed{fmt.Errorf("%w (answer: %s)", err, c.excerpt(data))}
		}
	}
	attrs := []any{"task", req.Task, "model", model, "duration", time.Since(start).Round(time.Millisecond), "attempts", attempts}
	if err != nil {
		err = c.scrub(fmt.Errorf("llm %s: %w", req.Task, err))
		var se *StatusError
		if errors.As(err, &se) {
			attrs = append(attrs, "status", se.Status, "body", se.Body)
		}
		logFailure(c.log, err, attrs)
		return Response{InputTokens: resp.InputTokens, OutputTokens: resp.OutputTokens}, err
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
		delay := c.retryDelay(attempt, retryAfter)
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
		return nil, -1, &retryableError{err}
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

// retryAfter parses a Retry-After header given in seconds, capped at
// retryAfterMax; -1 when absent or not a number of seconds.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return -1
	}
	return min(time.Duration(n), retryAfterMax/time.Second) * time.Second
}

// retryDelay is the wait before retry number attempt (1-based), whatever
// failed: c.retryBase doubled on each retry, capped at retryMax, jittered
// into [d/2, d). A server's Retry-After (-1 when none) is a floor: the wait
// is the larger of the two.
func (c *httpClient) retryDelay(attempt int, retryAfter time.Duration) time.Duration {
	r := rand.Float64
	if c.rand != nil {
		r = c.rand
	}
	d := backoff.Jitter(backoff.Delay(attempt, c.retryBase, retryMax), r())
	return max(d, retryAfter)
}

// excerpt returns the start of an answer body on one line, key removed.
func (c *httpClient) excerpt(data []byte) string {
	s := strings.Join(strings.Fields(string(data)), " ")
	s = dropControls(c.redact(s))
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
	for _, target := range []error{context.Canceled, context.DeadlineExceeded, ErrBilled} {
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

// dropControls takes control characters out of an excerpt of an answer:
// it is shown in errors, on a terminal.
func dropControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			return -1
		}
		return r
	}, s)
}

// logFailure logs a failed call: a warning, but for a call cancelled by
// its caller (memoryd stopping, an interrupted command), which is how work
// ends and is logged at info.
func logFailure(log *slog.Logger, err error, attrs []any) {
	if errors.Is(err, context.Canceled) {
		log.Info("llm call stopped", append(attrs, "err", err)...)
		return
	}
	log.Warn("llm call failed", append(attrs, "err", err)...)
}
