package warm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memoryd/memoryd/internal/cited"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
)

// Index is the daemon's search index as the server uses it (search.Index).
type Index interface {
	Sync(ctx context.Context, snap index.Snapshot) error
	Search(ctx context.Context, q search.Query) ([]search.Hit, error)
}

// vectorFiller is an Index that also embeds facts (search.Index); the
// daemon calls FillVectors through the Server.
type vectorFiller interface {
	FillVectors(ctx context.Context) (more bool, err error)
}

// Options configures a Server.
type Options struct {
	StateDir  string // where the socket is made
	MemoryDir string // the folder served: a Request for another is refused
	Version   string // the build of memoryd serving: a Request from another is refused
	// Recheck is how often the server checks that its socket is still
	// there (the state folder deleted under the daemon), and listens
	// again when it is not (5 s when zero).
	Recheck time.Duration
	Logger  *slog.Logger
}

// Server answers readers' searches from the daemon's index. It stands in
// for the index as the daemon's search cache (daemon.Searcher): the daemon
// syncs the index through it, and it answers only once a first Sync has
// succeeded, when the index holds the folder as the daemon read it.
type Server struct {
	opts  Options
	x     Index
	log   *slog.Logger
	ready atomic.Bool // a Sync has succeeded
}

// New returns a Server of x; it starts nothing until Run.
func New(opts Options, x Index) *Server {
	if opts.Recheck <= 0 {
		opts.Recheck = 5 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Server{opts: opts, x: x, log: log.With("component", "warm")}
}

// Sync syncs the index (the daemon's search goroutine calls it); from the
// first success on, the server answers. After each success it also writes
// the map of the files the facts cite (package cited) for the tool-call
// hook.
func (s *Server) Sync(ctx context.Context, snap index.Snapshot) error {
	err := s.x.Sync(ctx, snap)
	if err != nil {
		return err
	}
	s.ready.Store(true)
	if err := cited.Write(s.opts.StateDir, cited.Build(snap)); err != nil {
		s.log.Warn("write the map of cited files (the tool-call hook adds nothing meanwhile)", "err", err)
	}
	return nil
}

// FillVectors embeds facts for the index when it can (search.Index with an
// embedder); it does nothing otherwise.
func (s *Server) FillVectors(ctx context.Context) (bool, error) {
	if f, ok := s.x.(vectorFiller); ok {
		return f.FillVectors(ctx)
	}
	return false, nil
}

// Run listens on the socket and answers until ctx ends; then it closes
// every connection, removes the socket, and returns nil once every
// goroutine it started has returned. When it cannot listen it logs why
// and tries again every Recheck: readers search by themselves meanwhile.
func (s *Server) Run(ctx context.Context) error {
	path := filepath.Join(s.opts.StateDir, state.WarmSocket)
	var lastErr string
	for ctx.Err() == nil {
		ln, fi, err := listen(s.opts.StateDir, path)
		if err != nil {
			if err.Error() != lastErr {
				s.log.Warn("cannot listen for searches: readers open the search index themselves", "socket", path, "err", err)
				lastErr = err.Error()
			}
		} else {
			if lastErr != "" {
				s.log.Info("listening for searches again", "socket", path)
			}
			lastErr = ""
			s.serve(ctx, ln, path, fi)
		}
		select {
		case <-ctx.Done():
		case <-time.After(s.opts.Recheck):
		}
	}
	return nil
}

// listen makes the socket at path, readable and writable by the user
// alone, in a state folder only the user can enter.
func listen(dir, path string) (*net.UnixListener, os.FileInfo, error) {
	if err := state.Ensure(dir); err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, nil, err
		}
	}
	// A socket left by a daemon that was killed: the daemon holds the
	// single-instance lock, so nobody else listens here. Anything but a
	// socket is left alone, and Listen then says why it cannot.
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		os.Remove(path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Lstat(path)
	if err == nil {
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	return ln, fi, nil
}

// serve accepts connections on ln until ctx ends or the socket file is no
// longer the one made (fi), then closes ln and every connection and waits
// for their goroutines.
func (s *Server) serve(ctx context.Context, ln *net.UnixListener, path string, fi os.FileInfo) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns = map[net.Conn]bool{}
	)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // ln closed below
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Go(func() {
				s.handle(sctx, c)
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
				c.Close()
			})
		}
	})
	t := time.NewTicker(s.opts.Recheck)
	defer t.Stop()
	for gone := false; !gone; {
		select {
		case <-ctx.Done():
			gone = true
		case <-t.C:
			cur, err := os.Lstat(path)
			if gone = err != nil || !os.SameFile(cur, fi); gone {
				s.log.Warn("the search socket was removed: listening again", "socket", path)
				ln.SetUnlinkOnClose(false) // not ours any more
			}
		}
	}
	ln.Close()
	mu.Lock()
	for c := range conns {
		c.Close()
	}
	mu.Unlock()
	wg.Wait()
}

// idle is how long a connection may wait between requests.
const idle = 30 * time.Second

// handle answers the requests of one connection, a line each, until the
// reader closes it, idles, or ctx ends.
func (s *Server) handle(ctx context.Context, c net.Conn) {
	r := bufio.NewReaderSize(c, 16<<10)
	for ctx.Err() == nil {
		c.SetDeadline(time.Now().Add(idle))
		var req Request
		if err := readLine(r, &req); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) {
				return
			}
			writeLine(c, Response{Code: codeBadInput, Error: err.Error()})
			return
		}
		if err := writeLine(c, s.answer(ctx, req)); err != nil {
			return
		}
	}
}

// answer runs one Request.
func (s *Server) answer(ctx context.Context, req Request) Response {
	switch {
	case req.Protocol != Protocol || req.Version != s.opts.Version:
		return Response{Code: codeVersion, Error: "memoryd " + s.opts.Version + " is serving, asked by " + req.Version}
	case req.MemoryDir != s.opts.MemoryDir:
		return Response{Code: codeFolder, Error: "serving " + s.opts.MemoryDir + ", asked for " + req.MemoryDir}
	case !s.ready.Load():
		return Response{Code: codeWarming, Error: "the search index is being built"}
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	hits, err := s.x.Search(ctx, req.Query.search())
	switch {
	case errors.Is(err, search.ErrNoWords):
		return Response{Code: codeNoWords}
	case err != nil:
		return Response{Code: codeFailed, Error: err.Error()}
	case hits == nil:
		hits = []search.Hit{}
	}
	return Response{Hits: hits}
}

// writeLine writes v as one line of JSON.
func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
