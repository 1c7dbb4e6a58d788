package logfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/memoryd/memoryd/internal/state"
)

// A record written before the state folder is known reaches the file once
// it is; one that never finds a folder goes to standard error at Close.
func TestCommandPendingUntilAttach(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	var stderr bytes.Buffer
	l := NewCommand(&stderr)
	l.Write([]byte("early\n"))
	l.Attach(dir)
	l.Write([]byte("late\n"))
	l.Close()
	data, err := os.ReadFile(filepath.Join(dir, state.LogFile))
	if err != nil || string(data) != "early\nlate\n" {
		t.Fatalf("log file = %q, %v; want both records", data, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("standard error = %q, want nothing", stderr.String())
	}

	var lost bytes.Buffer
	l = NewCommand(&lost)
	l.Write([]byte("no folder\n"))
	l.Close()
	if lost.String() != "no folder\n" {
		t.Errorf("standard error = %q, want the pending record", lost.String())
	}
}

// KeepOutOfFile writes nothing to the file; --verbose still sees it.
func TestCommandKeepOutOfFile(t *testing.T) {
	dir := t.TempDir()
	var verbose bytes.Buffer
	l := NewCommand(nil)
	l.SetVerbose(&verbose)
	l.KeepOutOfFile()
	l.Attach(dir)
	l.Write([]byte("reading the log\n"))
	l.Close()
	if _, err := os.Stat(filepath.Join(dir, state.LogFile)); !os.IsNotExist(err) {
		t.Errorf("log file written: %v", err)
	}
	if verbose.String() != "reading the log\n" {
		t.Errorf("verbose = %q", verbose.String())
	}
	var nilLog *Command
	nilLog.Attach(dir) // a command without a log does nothing
	nilLog.KeepOutOfFile()
}
