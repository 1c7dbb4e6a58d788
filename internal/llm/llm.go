// Package llm asks a language model for one completion, behind the small
// Completer interface that the compactor and the extractor use.
//
// Providers, chosen by Options.Provider:
//
//   - "openai": any OpenAI-compatible POST {BaseURL}/chat/completions
//     (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, LiteLLM).
//     BaseURL defaults to https://api.openai.com/v1 and must include the
//     version segment ("http://localhost:11434/v1" for Ollama).
//   - "anthropic": POST {BaseURL}/v1/messages; BaseURL defaults to
//     https://api.anthropic.com (a trailing "/v1" is tolerated).
//   - "opencode": the user's own OpenCode, through a daemon-owned
//     `opencode serve` process (see the OpenCode section below).
//   - "none": New returns a Completer whose Complete always fails with
//     ErrDisabled, so callers can be wired the same way whether or not an LLM
//     is configured; they check errors.Is(err, ErrDisabled).
//
// # Models
//
// Request.Model names a model the way the configuration does,
// "provider/model" (the default is "openai/gpt-5-mini"). The HTTP providers
// strip their own prefix ("openai/", "anthropic/") only when talking to the
// vendor's own API (the default BaseURL host): a proxy such as LiteLLM or
// OpenRouter, or a vLLM server serving "openai/gpt-oss-20b", gets the name
// exactly as configured. The opencode provider splits the name at the first
// slash into OpenCode's providerID and modelID.
//
// # HTTP behaviour
//
// Every HTTP request carries "X-Memoryd-Task: <Request.Task>" (so a proxy can
// meter and route daemon traffic) and the User-Agent "memoryd". Each attempt
// is bounded by Options.Timeout (default 120 s) on top of the caller's
// context; a timed-out attempt is not retried (a slow generation would only
// be paid for again) and the error wraps context.DeadlineExceeded. Status 429,
// 5xx and connection failures (refused, reset, closed) are retried up to
// Options.MaxRetries times (default 3), every retry after a jittered
// exponential backoff: Options.RetryBase (default 500 ms) doubled per retry,
// at most 30 s, spread over [d/2, d). A Retry-After of whole seconds is a
// floor for that wait (capped at one minute), never a shortcut:
// "Retry-After: 0" still backs off. Other 4xx answers fail at once with a
// *StatusError. One log line is written per call (component=llm). The API
// key never appears in a log line or an error: it is scrubbed from every
// body excerpt and message.
//
// # OpenCode
//
// The opencode provider starts `opencode serve --pure` on 127.0.0.1 on the
// first Complete and stops it after Options.IdleTimeout without calls
// (default 5 min) and on Close. The server keeps the user's OpenCode
// configuration and credentials (XDG_CONFIG_HOME and XDG_DATA_HOME are left
// alone: auth.json lives in the data directory), but stores its sessions in
// its own database, OPENCODE_DB=<StateDir>/opencode/opencode.db (OpenCode
// 1.18 uses an absolute OPENCODE_DB as is), so the daemon's sessions never mix
// with the user's and are never extracted from. OPENCODE_CONFIG_CONTENT adds
// a tool-less agent named "memoryd" (every tool disabled, every permission
// denied). The server is protected by a random Basic-auth password.
//
// Each call checks that OpenCode knows the model (once per server, so a typo
// gets a clear error instead of a broken request), creates a session,
// prompts it synchronously, collects the text parts of the reply and deletes
// the session, aborting it first when the call failed or timed out: OpenCode
// itself retries upstream 429/5xx without end, so Options.Timeout bounds the
// whole call, server start included. MaxRetries, BaseURL and APIKey do not
// apply: OpenCode's provider settings and credentials do.
//
// The X-Memoryd-Task header reaches the upstream provider through OpenCode's
// per-model "headers" setting: each (task, model) pair gets its own working
// directory <StateDir>/opencode/work/<task>-<hash> holding a project
// opencode.json that sets that header on that model, and the session is
// created in that directory. OpenCode loads a directory's project config when
// it first sees the directory, so one server serves every task and model
// without restarts. (The upstream User-Agent stays OpenCode's.)
//
// Known limits of the opencode provider: OpenCode adds its environment block,
// the user's global AGENTS.md and the user's `instructions` files to every
// system prompt (they cannot be switched off per agent in 1.18, and an
// "instructions" list in OPENCODE_CONFIG_CONTENT adds to the user's rather
// than replacing it), and it writes its log file into the user's OpenCode
// data directory.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"
)

// Defaults applied by New when the corresponding Options field is zero.
const (
	DefaultTimeout     = 120 * time.Second
	DefaultMaxRetries  = 3
	DefaultRetryBase   = 500 * time.Millisecond
	DefaultIdleTimeout = 5 * time.Minute
)

// Request is one completion: a system prompt and a user prompt.
type Request struct {
	// Task names the job ("extract" or "compact"); it is sent as the
	// X-Memoryd-Task header and logged. It must match [a-z][a-z0-9_-]*.
	Task string
	// Model is "provider/model" as configured, e.g. "openai/gpt-5-mini".
	Model string
	// System and Prompt are the system and user messages.
	System, Prompt string
	// JSON asks for a single JSON object as the answer (native JSON mode for
	// openai; an instruction in the system prompt for anthropic and opencode).
	JSON bool
}

// Response is the model's answer.
type Response struct {
	Text string
	// InputTokens and OutputTokens are what the provider reported (0 when it
	// reported nothing, -1 when what it reported is no count: a word, a
	// negative, a fraction, more than a call can use). Input includes
	// cached prompt tokens; output includes reasoning tokens.
	InputTokens, OutputTokens int
}

// Tokens is the call's token count as the provider reported it, else an
// estimate of a token per four bytes of prompt and answer. A report that
// is missing, unreadable, or less than a token per 16 bytes sent and
// received (no tokenizer packs text that tightly: the report is wrong) is
// replaced by the estimate, so that a reply can never make a call cost
// less than what went over the wire. It is never negative.
func (r Response) Tokens(req Request) int {
	size := len(req.System) + len(req.Prompt) + len(r.Text)
	estimate := (size + 3) / 4
	in, out := r.InputTokens, r.OutputTokens
	if in < 0 || out < 0 || in > maxCallTokens || out > maxCallTokens {
		return estimate
	}
	if n := in + out; n > 0 && n >= size/16 {
		return n
	}
	return estimate
}

// Completer asks a model for one completion. Implementations are safe for
// concurrent use. A Completer returned by New may also implement io.Closer
// (the opencode provider does); the daemon closes it at shutdown.
type Completer interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// ErrDisabled is returned by Complete when the provider is "none".
var ErrDisabled = errors.New("llm disabled (provider none)")

// ErrClosed is returned by Complete after Close.
var ErrClosed = errors.New("llm provider closed")

// ErrBilled marks an error of a call the provider answered — and bills —
// with nothing usable in it (an empty answer, a refusal, an answer that
// cannot be read). Complete then returns, with the error, a Response that
// holds the usage the provider reported (-1 or 0 when it reported none),
// so that the call is counted: Response.Tokens estimates it from the
// bytes sent when the report is missing.
var ErrBilled = errors.New("the provider answered (billed)")

// ErrBudgetSpent is returned (wrapped) by a Completer that holds the
// daily token budget (cost.Counter with a limit) once the day's tokens
// reached it: no call was made.
var ErrBudgetSpent = errors.New("daily token budget spent")

// billed wraps an error of an answered call: its text is the error's,
// and it matches ErrBilled.
type billed struct{ error }

func (b billed) Unwrap() error        { return b.error }
func (b billed) Is(target error) bool { return target == ErrBilled }

// StatusError is an HTTP answer that was not a success (after any retries).
type StatusError struct {
	Status int
	// Body is a short excerpt of the response body, API key removed.
	Body string
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("status %d", e.Status)
	}
	return fmt.Sprintf("status %d: %s", e.Status, e.Body)
}

// Options configure New.
type Options struct {
	// Provider is "openai", "anthropic", "opencode" or "none".
	Provider string
	// BaseURL overrides the provider's endpoint (HTTP providers only).
	BaseURL string
	// APIKey is sent as a Bearer token (openai; omitted when empty, as local
	// servers need none) or x-api-key (anthropic). Unused by opencode.
	APIKey string
	// Timeout bounds one HTTP attempt (HTTP providers) or one whole call
	// (opencode). Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt on 429,
	// 5xx and connection errors (HTTP providers). Zero means
	// DefaultMaxRetries; negative means none.
	MaxRetries int
	// RetryBase is the wait before the first retry (HTTP providers); each
	// further retry waits twice as long, up to 30 s, and jitter spreads every
	// wait over [d/2, d). Zero means DefaultRetryBase.
	RetryBase time.Duration
	// OpenCodeBin is the opencode executable; "" means "opencode" on PATH.
	OpenCodeBin string
	// StateDir is the daemon's state directory for this memory folder; the
	// opencode provider keeps its database and working directories under
	// StateDir/opencode. Required for opencode.
	StateDir string
	// IdleTimeout stops the opencode server after this long without calls.
	// Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Env is the environment of the opencode server before memoryd adds its
	// own variables; nil means the daemon's own environment.
	Env []string
	// Logger receives one line per call; nil discards.
	Logger *slog.Logger
}

// New returns the Completer for opts.Provider. It starts nothing: the
// opencode server is started by the first Complete.
func New(opts Options) (Completer, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = DefaultMaxRetries
	} else if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = DefaultRetryBase
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "llm", "provider", opts.Provider)
	switch opts.Provider {
	case "openai":
		return newOpenAI(opts, log)
	case "anthropic":
		return newAnthropic(opts, log)
	case "opencode":
		return newOpenCode(opts, log)
	case "none":
		return disabled{}, nil
	}
	return nil, fmt.Errorf("llm provider %q: want openai, anthropic, opencode or none", opts.Provider)
}

type disabled struct{}

func (disabled) Complete(context.Context, Request) (Response, error) { return Response{}, ErrDisabled }

var taskPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// check validates the fields every provider relies on.
func (r Request) check() error {
	if !taskPattern.MatchString(r.Task) {
		return fmt.Errorf("llm request: bad task %q", r.Task)
	}
	if r.Model == "" {
		return errors.New("llm request: no model")
	}
	return nil
}

// jsonInstruction is added to the system prompt when a provider has no
// native JSON mode.
const jsonInstruction = "Answer with a single JSON object and nothing else: no prose, no markdown code fences."

// withJSONInstruction returns the system prompt for a JSON request on a
// provider without a native JSON mode.
func withJSONInstruction(system string, json bool) string {
	if !json {
		return system
	}
	if system == "" {
		return jsonInstruction
	}
	return system + "\n\n" + jsonInstruction
}

// Fake is an in-process Completer for tests of packages that use llm.
type Fake struct {
	// CompleteFunc answers Complete; nil answers an empty Response.
	CompleteFunc func(ctx context.Context, req Request) (Response, error)
}

var _ Completer = (*Fake)(nil)

// Complete calls f.CompleteFunc.
func (f *Fake) Complete(ctx context.Context, req Request) (Response, error) {
	if f.CompleteFunc == nil {
		return Response{}, nil
	}
	return f.CompleteFunc(ctx, req)
}
