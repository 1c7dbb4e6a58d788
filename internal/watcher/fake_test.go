package watcher

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// fakeFS is an fsWatcher whose events and errors the test sends by hand.
type fakeFS struct {
	evC  chan fsnotify.Event
	errC chan error

	mu      sync.Mutex
	added   []string
	removed []string
	closed  bool
	addErr  func(name string) error
}

func newFakeFS() *fakeFS {
	return &fakeFS{evC: make(chan fsnotify.Event), errC: make(chan error)}
}

func (f *fakeFS) Add(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.addErr != nil {
		if err := f.addErr(name); err != nil {
			return err
		}
	}
	f.added = append(f.added, name)
	return nil
}

func (f *fakeFS) Remove(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, name)
	return nil
}

func (f *fakeFS) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *fakeFS) events() <-chan fsnotify.Event { return f.evC }
func (f *fakeFS) errors() <-chan error          { return f.errC }

func (f *fakeFS) snapshot() (added, removed []string, closed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.added...), append([]string(nil), f.removed...), f.closed
}

// fakeFactory makes fakeFS watchers for Watcher.newFS and remembers them.
type fakeFactory struct {
	mu   sync.Mutex
	made []*fakeFS
	err  error // returned instead of a watcher while set
}

func (ff *fakeFactory) new() (fsWatcher, error) {
	ff.mu.Lock()
	defer ff.mu.Unlock()
	if ff.err != nil {
		return nil, ff.err
	}
	f := newFakeFS()
	ff.made = append(ff.made, f)
	return f, nil
}

func (ff *fakeFactory) setErr(err error) {
	ff.mu.Lock()
	defer ff.mu.Unlock()
	ff.err = err
}

// all returns the watchers made so far.
func (ff *fakeFactory) all() []*fakeFS {
	ff.mu.Lock()
	defer ff.mu.Unlock()
	return append([]*fakeFS(nil), ff.made...)
}

// logBuffer collects log lines from any goroutine.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// count returns how many lines contain s.
func (b *logBuffer) count(s string) int {
	n := 0
	for line := range strings.Lines(b.String()) {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

func newTestLogger() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}
