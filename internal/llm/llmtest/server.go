// Package llmtest is a fake LLM for tests: a real HTTP server on 127.0.0.1
// that speaks the OpenAI chat-completions API (plain JSON and SSE streaming,
// which OpenCode's openai-compatible provider uses), the Anthropic messages
// API (Claude Code) and the OpenAI Responses API (Codex), records every
// request and answers with a handler function: text, or a tool call
// (Call) in each API's shape, so that a real agent runs a tool and sends
// its result back.
//
// # Plain use
//
//	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
//		return llmtest.JSON(map[string]any{"ops": []any{}})
//	})
//	c, _ := llm.New(llm.Options{Provider: "openai", BaseURL: srv.OpenAIURL()})
//	…
//	reqs := srv.Requests() // what was asked: headers, body, system and user text
//
// # Behind a real OpenCode
//
// OpenCodeEnv gives an isolated environment (HOME and XDG directories under
// a temporary directory, update checks, models.dev fetches and npm installs
// disabled) in which `opencode` runs offline. WriteOpenCodeConfig writes the
// user configuration of that environment so that OpenCode's provider "fake"
// (model ModelRef, "fake/fake-model", also the default model) points at the
// server:
//
//	home := t.TempDir()
//	srv := llmtest.NewServer(t, nil) // answers "ok"
//	llmtest.WriteOpenCodeConfig(t, home, srv)
//	cmd := exec.Command("opencode", "run", "hello")
//	cmd.Env = llmtest.OpenCodeEnv(home)
//
// OpenCode 1.18 bundles @ai-sdk/openai-compatible, so nothing is downloaded
// (checked by running these tests under `unshare -n`, with only loopback).
// The session lands in OpenCodeDB(home), as a user's would. The daemon's
// own provider is tested the same way: llm.Options{Provider: "opencode",
// StateDir: t.TempDir(), Env: llmtest.OpenCodeEnv(home)} and requests for
// model ModelRef. Starting opencode takes seconds, tens of seconds on a
// loaded machine: give it generous deadlines.
// OpenCode's own side requests (the title of a new session) are answered by
// the server itself with TitleText and recorded with Kind "title"; they never
// reach the handler, so a handler scripted for N prompts sees exactly N.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TitleText is the answer to OpenCode's title-generation requests.
const TitleText = "Test session"

// Recorded is one request the server received.
type Recorded struct {
	// API is "openai" (chat completions), "anthropic" (messages) or
	// "responses" (OpenAI Responses API); Kind is "prompt", or "title" for
	// an OpenCode title-generation request.
	API, Kind string
	Method    string
	Path      string
	Header    http.Header
	Raw       []byte         // the request body as sent
	Body      map[string]any // Raw parsed as JSON (nil if it was not JSON)
	Model     string
	Stream    bool
	// System is the text of every system or developer message (OpenAI
	// chat, Responses), of the system field (Anthropic) or of the
	// instructions field (Responses), joined by "\n"; User the text of
	// every user message joined by "\n".
	System, User string
	// Tools are the names of the tools the request offers the model. A
	// Responses API namespace tool {"type": "namespace", "name": "mcp__x",
	// "tools": [{"name": "t"}]} (Codex's MCP tools) is listed as
	// "mcp__x__t", the name Claude Code gives the same tool.
	Tools []string
	// ToolResults are the texts of the tool results the request carries:
	// role "tool" messages (chat), tool_result blocks (Anthropic),
	// function_call_output items (Responses), in order.
	ToolResults []string
	// Task is the X-Memoryd-Task header.
	Task string
}

// Reply is what the server answers. The zero Reply answers an empty text.
type Reply struct {
	Text string
	// Status, when not 0 or 200, makes an error answer with Body (default:
	// a provider-shaped error object). Body, when set, is sent as it is
	// with Status (default 200) instead of a completion: malformed answers.
	Status int
	Body   string
	// Header is added to the answer (e.g. Retry-After).
	Header http.Header
	// Delay waits before answering (cut short when the client goes away).
	Delay time.Duration
	// InputTokens and OutputTokens are reported as usage; 0 means a count
	// derived from the text lengths.
	InputTokens, OutputTokens int
	// Tool, when set, makes the answer a call of that tool (after Text,
	// when Text is not empty).
	Tool *ToolCall
}

// Text answers s.
func Text(s string) Reply { return Reply{Text: s} }

// JSON answers v encoded as JSON text.
func JSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest.JSON: %v", err))
	}
	return Reply{Text: string(b)}
}

// Error answers status with body ("" for a default error object).
func Error(status int, body string) Reply { return Reply{Status: status, Body: body} }

// After returns r delayed by d.
func (r Reply) After(d time.Duration) Reply { r.Delay = d; return r }

// WithHeader returns r with a response header added.
func (r Reply) WithHeader(key, value string) Reply {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	r.Header = h
	return r
}

// WithTokens returns r reporting the given usage.
func (r Reply) WithTokens(in, out int) Reply { r.InputTokens, r.OutputTokens = in, out; return r }

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the server's root, "http://127.0.0.1:port".
	URL string

	handler func(Recorded) Reply
	srv     *httptest.Server
	stop    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	reqs    []Recorded
}

// NewServer starts a server on 127.0.0.1 that answers with handler (nil
// answers Text("ok")) and is closed when the test ends. handler may be
// called concurrently.
func NewServer(t testing.TB, handler func(r Recorded) Reply) *Server {
	t.Helper()
	if handler == nil {
		handler = func(Recorded) Reply { return Text("ok") }
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("llmtest: listen: %v", err)
	}
	s := &Server{handler: handler, stop: make(chan struct{})}
	s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(s.serve)}}
	s.srv.Start()
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// OpenAIURL is the base URL for an OpenAI-compatible client (URL + "/v1").
func (s *Server) OpenAIURL() string { return s.URL + "/v1" }

// Close stops the server; waiting replies end at once. It is idempotent.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.stop)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Requests returns a copy of every request recorded so far, in arrival
// order, title requests included.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.reqs...)
}

// Prompts returns the recorded requests of Kind "prompt".
func (s *Server) Prompts() []Recorded {
	var out []Recorded
	for _, r := range s.Requests() {
		if r.Kind == "prompt" {
			out = append(out, r)
		}
	}
	return out
}

// WaitPrompts polls until at least n prompt requests were recorded and
// returns them; it fails the test after timeout.
func (s *Server) WaitPrompts(t testing.TB, n int, timeout time.Duration) []Recorded {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p := s.Prompts()
		if len(p) >= n {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("llmtest: %d prompt requests after %s, want %d", len(p), timeout, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": ModelID, "object": "model", "owned_by": "llmtest"}}})
		return
	}
	api := ""
	switch {
	case r.Method != http.MethodPost:
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		api = "openai"
	case strings.HasSuffix(r.URL.Path, "/messages"):
		api = "anthropic"
	case strings.HasSuffix(r.URL.Path, "/responses"):
		api = "responses"
	}
	if r.Method == http.MethodHead && r.URL.Path == "/" {
		return // Claude Code's connectivity check
	}
	if api == "" {
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	rec := record(api, r, raw)
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()

	reply := Text(TitleText)
	if rec.Kind == "prompt" {
		reply = s.handler(rec)
	}
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.stop:
			return
		}
	}
	s.write(w, rec, reply)
}

// write sends reply in the shape rec's API and streaming mode expect.
func (s *Server) write(w http.ResponseWriter, rec Recorded, reply Reply) {
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if reply.Body != "" || (reply.Status != 0 && reply.Status != http.StatusOK) {
		writeError(w, rec.API, reply)
		return
	}
	in, out := reply.InputTokens, reply.OutputTokens
	if in == 0 && out == 0 {
		in, out = max(1, (len(rec.System)+len(rec.User))/4), max(1, len(reply.Text)/4)
	}
	a := answer{model: rec.Model, text: reply.Text, tool: reply.Tool, in: in, out: out}
	switch {
	case rec.API == "responses" && rec.Stream:
		streamResponses(w, a)
	case rec.API == "responses":
		writeJSON(w, http.StatusOK, a.response())
	case rec.API == "openai" && rec.Stream:
		streamOpenAI(w, a)
	case rec.API == "openai":
		answerOpenAI(w, a)
	case rec.Stream:
		streamAnthropic(w, a)
	default:
		answerAnthropic(w, a)
	}
}
