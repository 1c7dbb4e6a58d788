package logfile

import (
	"io"
	"path/filepath"
	"sync"

	"github.com/memoryd/memoryd/internal/state"
)

// Command is where a command's log records go: the state folder's log
// file (memoryd logs), and standard error too with --verbose. A command
// prints only its own output; `memoryd run` logs to standard error as
// before. The file is opened at the first record once the state folder is
// known (Attach); records before that wait for it, and go to standard
// error at Close when it never comes. Its methods may be called from any
// goroutine.
type Command struct {
	mu      sync.Mutex
	verbose io.Writer // standard error with --verbose, else nil
	stderr  io.Writer // where pending records go when there is no state folder
	dir     string    // the state folder, "" until known
	file    *File
	pending [][]byte
	noFile  bool // the command reads the log file: it writes nothing to it
}

// maxPending bounds the records kept before the state folder is known.
const maxPending = 64

// NewCommand is a command's log; records that never find a state folder
// go to stderr.
func NewCommand(stderr io.Writer) *Command { return &Command{stderr: stderr} }

// SetVerbose sends every record to w as well (--verbose).
func (l *Command) SetVerbose(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.verbose = w
}

func (l *Command) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.verbose != nil {
		l.verbose.Write(p)
	}
	if l.noFile {
		return len(p), nil
	}
	if l.dir == "" {
		if len(l.pending) < maxPending {
			l.pending = append(l.pending, append([]byte(nil), p...))
		}
		return len(p), nil
	}
	l.write(p)
	return len(p), nil
}

// write appends p to the log file, opening it first; called with mu held.
// A log that cannot be written must not fail the command.
func (l *Command) write(p []byte) {
	if l.file == nil {
		if state.Ensure(l.dir) != nil {
			return
		}
		f, err := Open(filepath.Join(l.dir, state.LogFile), DefaultMax)
		if err != nil {
			return
		}
		l.file = f
	}
	l.file.Write(p)
}

// Attach names the state folder; the records that waited for it are
// written. A nil log does nothing.
func (l *Command) Attach(dir string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dir != "" {
		return
	}
	l.dir = dir
	for _, p := range l.pending {
		l.write(p)
	}
	l.pending = nil
}

// KeepOutOfFile keeps the command's records out of the log file: memoryd
// logs shows that file, and its own records would show in it. A nil log
// does nothing.
func (l *Command) KeepOutOfFile() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.noFile, l.pending = true, nil
}

// Close writes what still waits for a state folder to standard error
// (unless --verbose did already) and closes the file.
func (l *Command) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.verbose == nil && l.stderr != nil {
		for _, p := range l.pending {
			l.stderr.Write(p)
		}
	}
	l.pending = nil
	if l.file != nil {
		l.file.Close()
	}
}
