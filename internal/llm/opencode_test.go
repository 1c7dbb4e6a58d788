//go:build unix

package llm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
	_ "modernc.org/sqlite"
)

// The opencode tests run the real opencode binary against llmtest, in an
// isolated home (llmtest.OpenCodeEnv) standing in for the user's.

type ocFixture struct {
	p     *openCode
	srv   *llmtest.Server
	home  string // the "user's" home: their config points at srv
	state string // the daemon's state directory
	logs  *logBuffer
}

func newOCFixture(t *testing.T, handler func(llmtest.Recorded) llmtest.Reply, opts Options) *ocFixture {
	t.Helper()
	needtool.Path(t, "opencode")
	f := &ocFixture{srv: llmtest.NewServer(t, handler), home: t.TempDir(), state: t.TempDir()}
	llmtest.WriteOpenCodeConfig(t, f.home, f.srv)
	log, logs := newLogger()
	f.logs = logs
	opts.Provider, opts.StateDir, opts.Logger = "opencode", f.state, log
	if opts.Env == nil {
		opts.Env = llmtest.OpenCodeEnv(f.home)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 2 * time.Minute // a loaded CI machine starts opencode slowly
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.p = c.(*openCode)
	t.Cleanup(func() { f.p.Close() })
	return f
}

func (f *ocFixture) server() *ocServer {
	f.p.mu.Lock()
	defer f.p.mu.Unlock()
	return f.p.srv
}

// countSessions counts the session rows of an OpenCode database; a missing
// database has none.
func countSessions(t *testing.T, path string) int {
	t.Helper()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return 0
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM session").Scan(&n); err != nil {
		t.Fatalf("count sessions in %s: %v", path, err)
	}
	return n
}

// waitGone polls until process pid no longer exists.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestOpenCodeComplete(t *testing.T) {
	f := newOCFixture(t, func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Text(`{"memories":[]} for `+r.Task).WithTokens(33, 7)
	}, Options{})
	req := Request{Task: "extract", Model: llmtest.ModelRef, System: "SYSTEM-RULES", Prompt: "TRANSCRIPT-TEXT", JSON: true}
	resp, err := f.p.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("%v\n%s", err, f.logs)
	}
	if resp.Text != `{"memories":[]} for extract` || resp.InputTokens != 33 || resp.OutputTokens != 7 {
		t.Errorf("response %+v", resp)
	}
	prompts := f.srv.Prompts()
	if len(prompts) != 1 {
		t.Fatalf("%d prompts reached the fake, want 1: %+v", len(prompts), prompts)
	}
	r := prompts[0]
	if r.Task != "extract" || r.Model != llmtest.ModelID || r.User != "TRANSCRIPT-TEXT" || !r.Stream {
		t.Errorf("recorded task %q model %q user %q stream %v", r.Task, r.Model, r.User, r.Stream)
	}
	for _, want := range []string{agentPrompt, "SYSTEM-RULES", jsonInstruction} {
		if !strings.Contains(r.System, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, r.System)
		}
	}
	if tools, _ := r.Body["tools"].([]any); len(tools) != 0 {
		t.Errorf("the agent offered %d tools", len(tools))
	}
	if n := countSessions(t, filepath.Join(f.state, "opencode", "opencode.db")); n != 0 {
		t.Errorf("%d sessions left in the daemon's database", n)
	}
	if _, err := os.Stat(llmtest.OpenCodeDB(f.home)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the server touched the user's database: %v", err)
	}
	if resp, err := http.Get(f.server().url + "/session"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("server without password: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// A second task on the same server carries its own header.
	pid := f.server().cmd.Process.Pid
	req.Task = "compact"
	if _, err := f.p.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if r := f.srv.Prompts()[1]; r.Task != "compact" {
		t.Errorf("second call task header %q", r.Task)
	}
	if got := f.server().cmd.Process.Pid; got != pid {
		t.Errorf("server restarted between tasks (%d → %d)", pid, got)
	}
	for _, want := range []string{"task=extract", "task=compact", "input_tokens=33", "provider=opencode", "opencode server started"} {
		if !strings.Contains(f.logs.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}

	checkConcurrentCalls(t, f, pid)

	f.p.Close()
	waitGone(t, pid)
	if _, err := f.p.Complete(context.Background(), req); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

// TestOpenCodeIdleStop: the server stops after IdleTimeout without calls;
// the next call starts a new one, which first deletes the sessions an
// earlier run left behind (as after a crash mid-call).
// checkConcurrentCalls makes four calls at once: they share the server
// (pid), each with its own task header.
func checkConcurrentCalls(t *testing.T, f *ocFixture, pid int) {
	t.Helper()
	before := len(f.srv.Prompts())
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			req := Request{Task: []string{"extract", "compact"}[i%2], Model: llmtest.ModelRef, Prompt: fmt.Sprintf("q%d", i)}
			resp, err := f.p.Complete(context.Background(), req)
			if err == nil && resp.Text != `{"memories":[]} for `+req.Task {
				err = fmt.Errorf("call %d got %q", i, resp.Text)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("%v\n%s", err, f.logs)
	}
	for _, r := range f.srv.Prompts()[before:] {
		if want := []string{"extract", "compact"}[int(r.User[1]-'0')%2]; r.Task != want {
			t.Errorf("prompt %q carried task %q, want %q", r.User, r.Task, want)
		}
	}
	if n := strings.Count(f.logs.String(), "opencode server started"); n != 1 || f.server().cmd.Process.Pid != pid {
		t.Errorf("%d servers started, want 1", n)
	}
}

func TestOpenCodeIdleStop(t *testing.T) {
	// Long enough that the leftover session below is made before the
	// server idles out, on a loaded machine too.
	f := newOCFixture(t, nil, Options{IdleTimeout: 4 * time.Second})
	req := Request{Task: "extract", Model: llmtest.ModelRef, Prompt: "p"}
	if _, err := f.p.Complete(context.Background(), req); err != nil {
		t.Fatalf("%v\n%s", err, f.logs)
	}
	s := f.server()
	if s == nil {
		t.Fatal("no server after a call")
	}
	pid := s.cmd.Process.Pid
	dir, _ := f.p.workDir("extract", llmtest.ProviderID, llmtest.ModelID)
	if _, err := s.createSession(context.Background(), dir, "leftover"); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	db := filepath.Join(f.state, "opencode", "opencode.db")
	if n := countSessions(t, db); n != 1 {
		t.Fatalf("%d sessions before restart, want the leftover", n)
	}
	deadline := time.Now().Add(30 * time.Second)
	for f.server() != nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if f.server() != nil || !strings.Contains(f.logs.String(), "reason=idle") {
		t.Fatalf("server not released after idling:\n%s", f.logs)
	}
	// The next call starts a new server.
	resp, err := f.p.Complete(context.Background(), req)
	if err != nil || resp.Text != "ok" {
		t.Fatalf("after idle stop: %+v %v", resp, err)
	}
	if s := f.server(); s == nil || s.cmd.Process.Pid == pid {
		t.Error("no new server")
	}
	if n := countSessions(t, db); n != 0 {
		t.Errorf("%d sessions after restart, want 0", n)
	}
}

func TestOpenCodeUpstreamErrors(t *testing.T) {
	f := newOCFixture(t, func(r llmtest.Recorded) llmtest.Reply {
		if strings.Contains(r.User, "unauthorized") {
			return llmtest.Error(401, `{"error":{"message":"bad credentials"}}`)
		}
		return llmtest.Error(500, "")
	}, Options{Timeout: 90 * time.Second})
	ctx := context.Background()
	_, err := f.p.Complete(ctx, Request{Task: "extract", Model: llmtest.ModelRef, Prompt: "unauthorized"})
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 401 || !strings.Contains(err.Error(), "bad credentials") {
		t.Fatalf("error %v, want a *StatusError 401", err)
	}

	// OpenCode retries a 500 without end: the call's deadline ends it, and
	// the session is aborted and deleted.
	ctx, cancel := context.WithTimeout(ctx, 4*time.Second)
	defer cancel()
	_, err = f.p.Complete(ctx, Request{Task: "extract", Model: llmtest.ModelRef, Prompt: "fails"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want DeadlineExceeded", err)
	}
	if n := countSessions(t, filepath.Join(f.state, "opencode", "opencode.db")); n != 0 {
		t.Errorf("%d sessions left after a failed call", n)
	}

	_, err = f.p.Complete(context.Background(), Request{Task: "extract", Model: "fake/no-such-model", Prompt: "x"})
	if err == nil || !strings.Contains(err.Error(), `provider "fake" has no model "no-such-model"`) {
		t.Errorf("unknown model: %v", err)
	}
	_, err = f.p.Complete(context.Background(), Request{Task: "extract", Model: "nosuch/model", Prompt: "x"})
	if err == nil || !strings.Contains(err.Error(), `no provider "nosuch"`) || !strings.Contains(err.Error(), "fake") {
		t.Errorf("unknown provider: %v", err)
	}
	if n := len(f.srv.Prompts()); n == 0 || f.srv.Prompts()[n-1].Model != llmtest.ModelID {
		t.Errorf("a request for an unknown model reached the provider")
	}
	_, err = f.p.Complete(context.Background(), Request{Task: "extract", Model: "no-slash", Prompt: "x"})
	if !errors.Is(err, errNoSlash) {
		t.Errorf("model without provider: %v", err)
	}
}

// TestOpenCodeCatalogueProvider uses a provider the user did not configure
// but that OpenCode knows from its models catalogue, with the key in the
// environment, as for OPENAI_API_KEY and "openai/gpt-5-mini": the user's
// credentials are used and the task header still reaches the provider.
func TestOpenCodeCatalogueProvider(t *testing.T) {
	needtool.Path(t, "opencode")
	srv := llmtest.NewServer(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Text("from acme") })
	home := t.TempDir()
	catalogue := filepath.Join(t.TempDir(), "models.json")
	err := os.WriteFile(catalogue, []byte(fmt.Sprintf(`{"acme": {"id": "acme", "name": "Acme", "env": ["ACME_API_KEY"],
		"npm": "@ai-sdk/openai-compatible", "api": %q, "models": {"acme-1": {"id": "acme-1", "name": "Acme 1",
		"attachment": false, "reasoning": false, "temperature": true, "tool_call": true, "release_date": "2025-01-01",
		"last_updated": "2025-01-01", "modalities": {"input": ["text"], "output": ["text"]}, "open_weights": false,
		"cost": {"input": 0, "output": 0}, "limit": {"context": 128000, "output": 8192}}}}}`, srv.OpenAIURL())), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	env := append(llmtest.OpenCodeEnv(home), "OPENCODE_MODELS_PATH="+catalogue, "ACME_API_KEY=acme-user-key")
	f := newOCFixture(t, nil, Options{Env: env})
	resp, err := f.p.Complete(context.Background(), Request{Task: "compact", Model: "acme/acme-1", Prompt: "p"})
	if err != nil || resp.Text != "from acme" {
		t.Fatalf("%+v %v\n%s", resp, err, f.logs)
	}
	r := srv.Prompts()[0]
	if r.Task != "compact" || r.Header.Get("Authorization") != "Bearer acme-user-key" || r.Model != "acme-1" {
		t.Errorf("task %q auth %q model %q", r.Task, r.Header.Get("Authorization"), r.Model)
	}
}
