// Package memtest is what tests share to build a memory folder's world: the
// text of a memory file and a log buffer that goroutines may write while a
// test reads it. (The git CLI for tests is package gittest.)
package memtest

import (
	"bytes"
	"log/slog"
	"sync"
)

// Fact is the text of a memory file: frontmatter with name, description
// and metadata.type, then body.
func Fact(typ, name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\nmetadata:\n  type: " + typ + "\n---\n" + body + "\n"
}

// Log is a buffer safe for concurrent writes and reads: what a component
// under test logged (Logger), read while it still runs.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Logger is a text logger at debug level that writes to l.
func (l *Log) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
