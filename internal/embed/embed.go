// Package embed asks an OpenAI-compatible embeddings endpoint
// (POST {BaseURL}/embeddings with {"model", "input": [...]}, answered with
// {"data": [{"embedding": [...], "index": i}], "usage": {...}}) for the
// vectors of texts: OpenAI itself, or a local Ollama or llama.cpp server
// ("http://localhost:11434/v1"). It is the optional second signal of
// search (package search), which fails open to its word ranking whenever
// this package fails.
//
// Every call's tokens (as the server reported them, else a token per four
// characters of input) go into the state folder's daily ledger under the
// task "embed", like every LLM call, and no call is made once the day's
// tokens reach the daily limit (ErrOverBudget). A query is embedded within
// Options.Timeout and never retried; a batch of facts gets
// Options.BatchTimeout. The API key never appears in a log line or an
// error.
package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/cost"
	"github.com/memoryd/memoryd/internal/state"
)

// Defaults applied by New when the Options field is zero.
const (
	DefaultTimeout      = 300 * time.Millisecond
	DefaultBatchTimeout = 60 * time.Second
)

// Task is the ledger's task name for embedding calls.
const Task = "embed"

const (
	maxAnswer  = 64 << 20 // bytes read from an answer
	excerptLen = 200      // bytes of a failed answer kept in errors
)

// ErrOverBudget is returned, without a call, once the tokens recorded today
// reach the daily limit.
var ErrOverBudget = errors.New("embeddings: the daily token budget (llm.daily_tokens) is spent")

// Options configure New.
type Options struct {
	// BaseURL is the endpoint's base, version segment included
	// ("http://localhost:11434/v1"); "/embeddings" is added to it.
	BaseURL string
	// Model is sent as is.
	Model string
	// APIKey is sent as a Bearer token; omitted when empty.
	APIKey string
	// Timeout bounds embedding one query (Query); zero means DefaultTimeout.
	Timeout time.Duration
	// BatchTimeout bounds embedding a batch of facts (Batch); zero means
	// DefaultBatchTimeout.
	BatchTimeout time.Duration
	// StateDir holds the token ledger; "" records nothing and enforces no
	// budget.
	StateDir string
	// DailyTokens is llm.daily_tokens: 0 or less means no limit.
	DailyTokens int
	// Logger receives a line for each call that failed or was not made
	// (over budget), and why; nil discards.
	Logger *slog.Logger
	// Client is the HTTP client; nil means a new one.
	Client *http.Client
}

// Client embeds texts. Safe for concurrent use.
type Client struct {
	o        Options
	endpoint string
	log      *slog.Logger
	now      func() time.Time
	records  sync.WaitGroup // a query's tokens being recorded (Wait)
}

// New checks opts and returns a Client; it makes no call.
func New(opts Options) (*Client, error) {
	base := strings.TrimRight(opts.BaseURL, "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("embeddings base url %q: want http(s)://host[/path]", opts.BaseURL)
	}
	if strings.TrimSpace(opts.Model) == "" {
		return nil, errors.New("embeddings: no model")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.BatchTimeout <= 0 {
		opts.BatchTimeout = DefaultBatchTimeout
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Client{o: opts, endpoint: base + "/embeddings", log: log.With("component", "embed"), now: time.Now}, nil
}

// Logger is where the client logs, for its callers' own reasons.
func (c *Client) Logger() *slog.Logger { return c.log }

// Model is the model the vectors come from: vectors of another model are
// not comparable with these.
func (c *Client) Model() string { return c.o.Model }

// Query embeds one search query within Options.Timeout.
func (c *Client) Query(ctx context.Context, text string) ([]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	vs, err := c.embed(ctx, []string{text}, c.o.Timeout, true)
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// Wait waits for the tokens of the queries embedded so far to be
// recorded: Query records them after it returns (the ledger's write and
// sync cost a search milliseconds), so a process that ends soon after a
// search waits for them first.
func (c *Client) Wait() { c.records.Wait() }

// Batch embeds texts in one call within Options.BatchTimeout, the vectors
// in the order of texts.
func (c *Client) Batch(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.BatchTimeout)
	defer cancel()
	return c.embed(ctx, texts, c.o.BatchTimeout, false)
}

type request struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type answer struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     *int      `json:"index"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// embed makes one call. Every vector of the answer must have the same
// length, with finite values, one per text. With later, the tokens are
// recorded after it returns (Wait).
func (c *Client) embed(ctx context.Context, texts []string, limit time.Duration, later bool) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if err := c.budget(); err != nil {
		c.log.Info("no embeddings: search answers by words alone", "texts", len(texts), "reason", err)
		return nil, err
	}
	start := time.Now()
	vs, tokens, err := c.post(ctx, texts, limit)
	if later && (err == nil || tokens > 0) {
		c.records.Add(1)
		go func() {
			defer c.records.Done()
			c.record(tokens)
		}()
	} else if err == nil || tokens > 0 {
		c.record(tokens)
	}
	if err != nil {
		err = c.scrub(err)
		c.log.Warn("embeddings call failed: search answers by words alone", "texts", len(texts),
			"duration", time.Since(start).Round(time.Millisecond), "err", err)
		return nil, err
	}
	c.log.Debug("embeddings call", "texts", len(texts), "tokens", tokens, "dimensions", len(vs[0]),
		"duration", time.Since(start).Round(time.Millisecond))
	return vs, nil
}

// budget returns ErrOverBudget once today's tokens reach the limit. An
// unreadable ledger does not stop the call.
func (c *Client) budget() error {
	if c.o.StateDir == "" || c.o.DailyTokens <= 0 {
		return nil
	}
	led, err := state.ReadTokens(c.o.StateDir)
	if err != nil {
		return nil
	}
	if _, over := cost.Spent(led, c.o.DailyTokens, c.now()); over {
		return ErrOverBudget
	}
	return nil
}

func (c *Client) record(tokens int) {
	if c.o.StateDir == "" || tokens <= 0 {
		return
	}
	if _, err := state.UpdateTokens(c.o.StateDir, state.AddTokens(c.now(), Task, tokens)); err != nil {
		c.log.Warn("record the tokens of an embeddings call", "tokens", tokens, "err", err)
	}
}

// post sends texts and decodes the answer. tokens is what the call cost:
// reported by the server, else estimated — also for an answer that came but
// could not be used, since it was paid for.
func (c *Client) post(ctx context.Context, texts []string, limit time.Duration) (vs [][]float32, tokens int, err error) {
	body, err := json.Marshal(request{Model: c.o.Model, Input: texts})
	if err != nil {
		return nil, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "memoryd")
	req.Header.Set("X-Memoryd-Task", Task)
	if c.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.APIKey)
	}
	resp, err := c.o.Client.Do(req)
	var data []byte
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
		resp.Body.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("embeddings: no answer within %s: %w", limit, context.DeadlineExceeded)
		}
		return nil, 0, fmt.Errorf("embeddings: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, 0, fmt.Errorf("embeddings: status %d: %s", resp.StatusCode, excerpt(data))
	}
	estimate := 0
	for _, t := range texts {
		estimate += (len(t) + 3) / 4
	}
	var a answer
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, estimate, fmt.Errorf("embeddings: unreadable answer: %v (%s)", err, excerpt(data))
	}
	tokens = cmpOr(a.Usage.TotalTokens, a.Usage.PromptTokens, estimate)
	if len(a.Data) != len(texts) {
		return nil, tokens, fmt.Errorf("embeddings: %d vectors for %d texts", len(a.Data), len(texts))
	}
	vs, err = a.vectors()
	return vs, tokens, err
}

// vectors are the answer's vectors in the order of the texts asked (by
// each one's index, else its place): an index out of range or given
// twice, vectors of different lengths, or a value that is not a number
// make the whole answer an error.
func (a answer) vectors() ([][]float32, error) {
	vs := make([][]float32, len(a.Data))
	for i, d := range a.Data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= len(vs) || vs[at] != nil {
			return nil, fmt.Errorf("embeddings: bad index %d in the answer", at)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) != len(a.Data[0].Embedding) {
			return nil, fmt.Errorf("embeddings: vectors of %d and %d dimensions in one answer", len(d.Embedding), len(a.Data[0].Embedding))
		}
		for _, f := range d.Embedding {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, errors.New("embeddings: a vector holds a value that is not a number")
			}
		}
		vs[at] = d.Embedding
	}
	return vs, nil
}

func cmpOr(ns ...int) int {
	for _, n := range ns {
		if n > 0 {
			return n
		}
	}
	return 0
}

func excerpt(data []byte) string {
	s := strings.Join(strings.Fields(string(data)), " ")
	if len(s) > excerptLen {
		s = s[:excerptLen] + "…"
	}
	return s
}

// scrub removes the API key from err's text.
func (c *Client) scrub(err error) error {
	if c.o.APIKey == "" || !strings.Contains(err.Error(), c.o.APIKey) {
		return err
	}
	return &scrubbed{msg: strings.ReplaceAll(err.Error(), c.o.APIKey, "[redacted]"), err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }
