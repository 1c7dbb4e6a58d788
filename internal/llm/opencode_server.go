package llm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	serverUser   = "opencode"
	startTimeout = 60 * time.Second // first start migrates a fresh database
	stopGrace    = 5 * time.Second  // SIGTERM → SIGKILL
	logTail      = 200              // stderr lines kept for error messages
)

// ocServer is one running `opencode serve` process. Its methods are safe
// for concurrent use; stop is called once, by the provider.
type ocServer struct {
	url      string
	password string
	cmd      *exec.Cmd
	cancel   context.CancelFunc // ends the process (SIGTERM to its group)
	done     chan struct{}      // closed when the process has exited
	waitErr  error              // valid after done is closed
	stderr   *lineWriter
	client   *http.Client

	modelsMu sync.Mutex
	models   map[string]map[string]bool // provider → model → true; nil until checkModel asks
}

// serverSpec is what startServer needs.
type serverSpec struct {
	bin, dir string
	env      []string
	log      *slog.Logger
}

// startServer runs opencode serve and waits until it listens, ctx ends or
// startTimeout passes. On error no process is left running.
func startServer(ctx context.Context, spec serverSpec) (*ocServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("start opencode: %w", err)
	}
	pw := make([]byte, 16)
	rand.Read(pw)
	s := &ocServer{password: hex.EncodeToString(pw), done: make(chan struct{}), client: &http.Client{}}

	pctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	cmd := exec.CommandContext(pctx, spec.bin, "serve", "--pure", "--hostname", "127.0.0.1",
		"--port", strconv.Itoa(port), "--print-logs", "--log-level", "WARN")
	cmd.Dir = spec.dir
	cmd.Env = append(spec.env, "OPENCODE_SERVER_USERNAME="+serverUser, "OPENCODE_SERVER_PASSWORD="+s.password)
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return terminate(cmd) }
	cmd.WaitDelay = stopGrace

	ready := make(chan string, 1)
	cmd.Stdout = &lineWriter{max: 20, onLine: func(line string) {
		if _, u, ok := strings.Cut(line, "listening on "); ok {
			select {
			case ready <- strings.TrimSpace(u):
			default:
			}
		}
	}}
	s.stderr = &lineWriter{max: logTail, onLine: func(line string) { spec.log.Debug("opencode", "line", line) }}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start opencode: %w", err)
	}
	s.cmd = cmd
	go func() { // owned by s: ends when the process exits; stop waits for it
		s.waitErr = cmd.Wait()
		close(s.done)
	}()

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case u := <-ready:
		s.url = strings.TrimRight(u, "/")
		return s, nil
	case <-s.done:
		s.stop()
		return nil, fmt.Errorf("start opencode: exited (%v): %s", s.waitErr, s.stderr.tail(5))
	case <-ctx.Done():
		s.stop()
		return nil, fmt.Errorf("start opencode: %w", ctx.Err())
	case <-timer.C:
		s.stop()
		return nil, fmt.Errorf("start opencode: not listening after %s: %s", startTimeout, s.stderr.tail(5))
	}
}

// freePort asks the kernel for a free TCP port on 127.0.0.1. Another
// process could take it before opencode binds it; the start then fails and
// the next call starts again.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// alive reports whether the process is still running.
func (s *ocServer) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// stop ends the process (SIGTERM to its process group, SIGKILL after
// stopGrace) and waits for it.
func (s *ocServer) stop() {
	s.cancel()
	<-s.done
}

// call sends a JSON request to the server, for the project directory dir,
// and decodes a 200 answer into out (when out is not nil).
func (s *ocServer) call(ctx context.Context, method, path, dir string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	u := s.url + path + "?directory=" + url.QueryEscape(dir)
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.SetBasicAuth(serverUser, s.password)
	req.Header.Set("User-Agent", userAgent)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return s.statusError(resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode opencode answer: %w", err)
	}
	return nil
}

var logErrorField = regexp.MustCompile(`error="((?:[^"\\]|\\.)*)"`)

// statusError turns a failed server answer into a *StatusError. OpenCode
// answers internal failures with {"name":"UnknownError","data":{"ref":...}}
// and logs the cause under that ref; the cause is looked up in the server's
// stderr so the error says what went wrong ("Model not found: x/y").
func (s *ocServer) statusError(status int, data []byte) error {
	var e struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
			Ref     string `json:"ref"`
		} `json:"data"`
	}
	msg := strings.Join(strings.Fields(string(data)), " ")
	if json.Unmarshal(data, &e) == nil && e.Data.Message != "" {
		msg = e.Name + ": " + e.Data.Message
		if e.Data.Ref != "" {
			if line := s.stderr.waitFind("ref="+e.Data.Ref, 300*time.Millisecond); line != "" {
				if m := logErrorField.FindStringSubmatch(line); m != nil {
					msg = m[1]
				}
			}
		}
	}
	if len(msg) > excerptLen {
		msg = msg[:excerptLen] + "…"
	}
	return &StatusError{Status: status, Body: msg}
}

// lineWriter splits what a process writes into lines, calls onLine for
// each and keeps the last max lines.
type lineWriter struct {
	max    int
	onLine func(string)

	mu      sync.Mutex
	partial []byte
	lines   []string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.partial[:i]), "\r")
		w.partial = w.partial[i+1:]
		if len(w.lines) == w.max {
			w.lines = w.lines[1:]
		}
		w.lines = append(w.lines, line)
		if w.onLine != nil {
			w.onLine(line)
		}
	}
	if len(w.partial) > 64<<10 { // a runaway line: keep memory bounded
		w.partial = w.partial[:0]
	}
	return len(p), nil
}

// tail returns the last n lines joined by " | ".
func (w *lineWriter) tail(n int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := w.lines[max(0, len(w.lines)-n):]
	if len(lines) == 0 {
		return "no output"
	}
	return strings.Join(lines, " | ")
}

// waitFind returns the newest kept line containing sub, waiting up to d
// for it (a process may log an error just after answering), or "".
func (w *lineWriter) waitFind(sub string, d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		if line := w.find(sub); line != "" || time.Now().After(deadline) {
			return line
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// find returns the newest kept line containing sub, or "".
func (w *lineWriter) find(sub string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.lines) - 1; i >= 0; i-- {
		if strings.Contains(w.lines[i], sub) {
			return w.lines[i]
		}
	}
	return ""
}
