package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// agentName is the tool-less agent the daemon's sessions run as.
const agentName = "memoryd"

var errNoSlash = errors.New("want provider/model")

// openCode talks to a daemon-owned `opencode serve`, started on demand and
// stopped when idle or on Close.
type openCode struct {
	bin     string
	dir     string // StateDir/opencode: database, working directories, server cwd
	env     []string
	timeout time.Duration
	idle    time.Duration
	log     *slog.Logger

	mu        sync.Mutex     // guards the fields below
	srv       *ocServer      // nil when no server is running
	starting  chan struct{}  // non-nil while one caller starts a server; closed when done
	inflight  int            // calls holding srv
	idleTimer *time.Timer    // stops srv after idle; armed when inflight drops to 0
	gen       int            // bumped on every acquire and arm, so a stale timer does nothing
	closed    bool           // Close was called
	stopping  sync.WaitGroup // idle stops under way; Close waits for them
	workDirs  map[string]bool
}

func newOpenCode(opts Options, log *slog.Logger) (*openCode, error) {
	if opts.StateDir == "" {
		return nil, errors.New("llm provider opencode: no state directory")
	}
	bin := opts.OpenCodeBin
	if bin == "" {
		bin = "opencode"
	}
	if _, err := exec.LookPath(bin); err != nil {
		return nil, fmt.Errorf("llm provider opencode: %w", err)
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	dir, err := filepath.Abs(filepath.Join(opts.StateDir, "opencode"))
	if err != nil {
		return nil, fmt.Errorf("llm provider opencode: %w", err)
	}
	return &openCode{
		bin: bin, dir: dir, env: serverEnv(env, dir),
		timeout: opts.Timeout, idle: opts.IdleTimeout, log: log,
		workDirs: map[string]bool{},
	}, nil
}

// Complete implements Completer: one session per call, deleted afterwards.
// The whole call, including starting the server, is bounded by
// Options.Timeout.
func (p *openCode) Complete(ctx context.Context, req Request) (Response, error) {
	if err := req.check(); err != nil {
		return Response{}, err
	}
	providerID, modelID, ok := strings.Cut(req.Model, "/")
	if !ok || providerID == "" || modelID == "" {
		return Response{}, fmt.Errorf("llm request: model %q: %w", req.Model, errNoSlash)
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	resp, err := p.complete(cctx, req, providerID, modelID)
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s: %w", p.timeout, context.DeadlineExceeded)
	}
	attrs := []any{"task", req.Task, "model", req.Model, "duration", time.Since(start).Round(time.Millisecond), "attempts", 1}
	if err != nil {
		err = fmt.Errorf("llm %s: %w", req.Task, err)
		var se *StatusError
		if errors.As(err, &se) {
			attrs = append(attrs, "status", se.Status, "body", se.Body)
		}
		logFailure(p.log, err, attrs)
		return Response{InputTokens: resp.InputTokens, OutputTokens: resp.OutputTokens}, err
	}
	p.log.Info("llm call", append(attrs, "input_tokens", resp.InputTokens, "output_tokens", resp.OutputTokens)...)
	return resp, nil
}

func (p *openCode) complete(ctx context.Context, req Request, providerID, modelID string) (Response, error) {
	srv, err := p.acquire(ctx)
	if err != nil {
		return Response{}, err
	}
	defer p.release()
	if err := srv.checkModel(ctx, p.dir, providerID, modelID); err != nil {
		return Response{}, err
	}
	dir, err := p.workDir(req.Task, providerID, modelID)
	if err != nil {
		return Response{}, err
	}
	sid, err := srv.createSession(ctx, dir, req.Task)
	if err != nil {
		return Response{}, err
	}
	finished := false
	defer func() { p.discard(ctx, srv, dir, sid, !finished) }()
	resp, err := srv.prompt(ctx, dir, sid, promptBody{
		Agent:  agentName,
		Model:  promptModel{ProviderID: providerID, ModelID: modelID},
		System: withJSONInstruction(req.System, req.JSON),
		Parts:  []textPart{{Type: "text", Text: req.Prompt}},
	})
	finished = err == nil
	return resp, err
}

// discard deletes a session, aborting it first when its prompt did not
// finish (OpenCode keeps retrying a failing upstream on its own). It runs
// even when ctx has ended, with a short deadline of its own.
func (p *openCode) discard(ctx context.Context, srv *ocServer, dir, sid string, abort bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if abort {
		if err := srv.call(ctx, "POST", "/session/"+sid+"/abort", dir, nil, nil); err != nil {
			p.log.Warn("abort opencode session", "session", sid, "err", err)
		}
	}
	if err := srv.call(ctx, "DELETE", "/session/"+sid, dir, nil, nil); err != nil {
		p.log.Warn("delete opencode session", "session", sid, "err", err)
	}
}

// acquire returns the running server, starting one if needed, and counts
// the caller in; every successful acquire is paired with a release.
func (p *openCode) acquire(ctx context.Context) (*ocServer, error) {
	p.mu.Lock()
	for {
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		if s := p.srv; s != nil {
			if s.alive() {
				p.inflight++
				p.gen++
				if p.idleTimer != nil {
					p.idleTimer.Stop()
				}
				p.mu.Unlock()
				return s, nil
			}
			p.srv = nil
			s.stop() // already exited: returns at once
			p.log.Warn("opencode server exited", "err", s.waitErr, "output", s.stderr.tail(5))
		}
		if ch := p.starting; ch != nil {
			p.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			p.mu.Lock()
			continue
		}
		ch := make(chan struct{})
		p.starting = ch
		p.mu.Unlock()
		s, err := p.start(ctx)
		p.mu.Lock()
		p.starting = nil
		if err == nil && p.closed {
			p.mu.Unlock()
			s.stop()
			close(ch) // after stop: Close waits on ch
			return nil, ErrClosed
		}
		close(ch)
		if err != nil {
			p.mu.Unlock()
			return nil, err
		}
		p.srv = s
	}
}

// release counts a caller out and arms the idle timer when none is left.
func (p *openCode) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight--
	if p.inflight > 0 || p.srv == nil || p.closed {
		return
	}
	p.gen++
	gen := p.gen
	if p.idleTimer != nil {
		p.idleTimer.Stop()
	}
	p.idleTimer = time.AfterFunc(p.idle, func() { p.stopIdle(gen) })
}

// stopIdle stops the server if nothing used it since the timer was armed.
func (p *openCode) stopIdle(gen int) {
	p.mu.Lock()
	s := p.srv
	if p.closed || gen != p.gen || p.inflight > 0 || s == nil {
		p.mu.Unlock()
		return
	}
	p.srv = nil
	p.stopping.Add(1)
	p.mu.Unlock()
	defer p.stopping.Done()
	s.stop()
	p.log.Info("opencode server stopped", "reason", "idle", "idle", p.idle)
}

// Close stops the server, if one runs or is starting, and makes later calls
// fail with ErrClosed; when it returns no server process is left. Calls
// still in flight fail. Close is idempotent.
func (p *openCode) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if p.idleTimer != nil {
		p.idleTimer.Stop()
	}
	s, starting := p.srv, p.starting
	p.srv = nil
	p.mu.Unlock()
	if s != nil {
		s.stop()
		p.log.Info("opencode server stopped", "reason", "close")
	}
	if starting != nil {
		<-starting // the starter stops what it started
	}
	p.stopping.Wait()
	return nil
}

// start runs a new server and deletes sessions a previous run left behind.
func (p *openCode) start(ctx context.Context) (*ocServer, error) {
	if err := os.MkdirAll(filepath.Join(p.dir, "work"), 0o700); err != nil {
		return nil, fmt.Errorf("start opencode: %w", err)
	}
	t0 := time.Now()
	s, err := startServer(ctx, serverSpec{bin: p.bin, dir: p.dir, env: p.env, log: p.log})
	if err != nil {
		return nil, err
	}
	p.log.Info("opencode server started", "url", s.url, "pid", s.cmd.Process.Pid, "duration", time.Since(t0).Round(time.Millisecond))
	p.sweep(ctx, s)
	return s, nil
}

// sweep deletes the sessions left in the working directories by a run that
// ended mid-call (a crash); best effort.
func (p *openCode) sweep(ctx context.Context, s *ocServer) {
	entries, _ := os.ReadDir(filepath.Join(p.dir, "work"))
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(p.dir, "work", e.Name())
		var sessions []struct {
			ID string `json:"id"`
		}
		if err := s.call(ctx, "GET", "/session", dir, nil, &sessions); err != nil {
			p.log.Debug("list opencode sessions", "dir", dir, "err", err)
			continue
		}
		for _, ses := range sessions {
			if err := s.call(ctx, "DELETE", "/session/"+ses.ID, dir, nil, nil); err != nil {
				p.log.Debug("delete left-over opencode session", "session", ses.ID, "err", err)
			}
		}
	}
}
