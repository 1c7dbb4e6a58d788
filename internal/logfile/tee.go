package logfile

import (
	"io"
	"log/slog"
	"sync"
)

// Tee is where `memoryd run` logs: standard error, and from the moment
// the instance lock is held the size-bounded log file in the state folder
// too, whether it runs as a service or by hand, so that `memoryd logs`
// always has something to show. The logger is built (and handed to git)
// before the state folder is known, so the file joins the writer, not a new
// logger. slog writes each record with one Write, so records stay whole.
type Tee struct {
	mu   sync.Mutex
	w    io.Writer
	file *File
}

// NewTee returns a Tee that writes to w alone until a file is attached.
func NewTee(w io.Writer) *Tee { return &Tee{w: w} }

func (d *Tee) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.file != nil {
		d.file.Write(p) // a full disk must not stop the daemon; stderr still has it
	}
	return d.w.Write(p)
}

// Quiet stops writing to standard error: the log file alone has the log.
func (d *Tee) Quiet() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.w = io.Discard
}

// Attach makes f the log file, closing the one it replaces (a log file
// of a deleted state folder).
func (d *Tee) Attach(f *File) {
	d.mu.Lock()
	old := d.file
	d.file = f
	d.mu.Unlock()
	if old != nil {
		old.Close()
	}
}

// Close closes the log file; what follows goes to standard error only.
func (d *Tee) Close() {
	d.Attach(nil)
}

// Failed writes the error that ends `memoryd run` to the log file: the
// command line prints it on standard error only, and a service that keeps
// failing is looked into with `memoryd logs`.
func (d *Tee) Failed(err error) {
	if err == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.file != nil {
		slog.New(slog.NewTextHandler(d.file, nil)).Error("memoryd run failed", "err", err)
	}
}
