// Package logfile is a log file kept under a size bound: one process
// appends to it and, when the next write would pass the bound, renames it
// to NAME.1 (replacing the older one) and starts a new one. So the log of a
// daemon that runs for months takes at most twice the bound on disk. It
// also reads such a log back: the last lines, then what is appended, across
// rotations (`memoryd logs -f`). Dedupe keeps a daemon stuck retrying
// something from filling it with one line repeated. Command is a
// command's log: held until the state folder is known, then in its file.
package logfile

import (
	"fmt"
	"os"
	"sync"
)

// DefaultMax is the size at which a log file is rotated.
const DefaultMax = 1 << 20

// Rotated is the name of the older file beside path.
func Rotated(path string) string { return path + ".1" }

// File is an open log file. It is safe for concurrent use; each Write is
// written whole to one file, so a log record is never split by a rotation.
type File struct {
	path string
	max  int64

	mu   sync.Mutex
	f    *os.File
	size int64
}

// Open opens path for appending, creating it (mode 0600) when missing. A
// max of zero or less means DefaultMax.
func Open(path string, max int64) (*File, error) {
	if max <= 0 {
		max = DefaultMax
	}
	l := &File{path: path, max: max}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *File) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log: %w", err)
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past its
// bound. A record larger than the bound gets a file of its own. When the
// rotation fails the file keeps growing, and the error is returned once per
// failed attempt; the record itself is still written.
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	var rerr error
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		rerr = l.rotate()
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	if err != nil {
		return n, err
	}
	return n, rerr
}

// rotate renames the file to its .1 and opens a new one. Called with mu held.
func (l *File) rotate() error {
	if err := os.Rename(l.path, Rotated(l.path)); err != nil {
		return fmt.Errorf("rotate log: %w", err)
	}
	old := l.f
	if err := l.open(); err != nil {
		// Keep writing to the renamed file rather than losing records.
		return err
	}
	old.Close()
	return nil
}

// Close closes the file; later writes fail.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
