package logfile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// record is one log line of a fixed width, so sizes are easy to reason about.
func record(i int) string { return fmt.Sprintf("line %04d %s\n", i, strings.Repeat("x", 40)) }

func TestRotationBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	const max = 1000
	l, err := Open(path, max)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200 // about 10 KB: several rotations
	for i := range n {
		if _, err := l.Write([]byte(record(i))); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	cur, _ := os.ReadFile(path)
	old, _ := os.ReadFile(Rotated(path))
	if len(cur) > max || len(old) > max {
		t.Fatalf("over the bound: %d and %d bytes (max %d)", len(cur), len(old), max)
	}
	if len(old) < max-len(record(0)) {
		t.Errorf("rotated file has %d bytes; it should have been filled close to %d", len(old), max)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 {
		t.Errorf("files: %v, want the log and its .1 only", entries)
	}
	// Every record is whole, and together the two files end with the newest.
	all := string(old) + string(cur)
	if !strings.HasSuffix(all, record(n-1)) {
		t.Errorf("newest record missing:\n%s", all)
	}
	for _, line := range strings.SplitAfter(strings.TrimSuffix(all, "\n"), "\n") {
		if len(line) != len(record(0)) && len(line) != len(record(0))-1 {
			t.Fatalf("a record was split: %q", line)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestRotationReopenAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	for i := range 3 {
		l, err := Open(path, 1000)
		if err != nil {
			t.Fatal(err)
		}
		l.Write([]byte(record(i)))
		l.Close()
	}
	if got, _ := os.ReadFile(path); string(got) != record(0)+record(1)+record(2) {
		t.Errorf("a restart should append:\n%s", got)
	}
}

func TestTailStart(t *testing.T) {
	for _, c := range []struct {
		text  string
		n     int
		want  string
		lines int
	}{
		{"", 3, "", 0},
		{"a", 1, "a", 1},
		{"a\n", 1, "a\n", 1},
		{"a\n", 3, "a\n", 1},
		{"a\nb", 1, "b", 1},
		{"a\nb\n", 1, "b\n", 1},
		{"a\nb\n", 2, "a\nb\n", 2},
		{"a\nb\nc\n", 2, "b\nc\n", 2},
		{"a\nb\nc\n", 0, "", 0},
		{"\n\n", 1, "\n", 1},
	} {
		r := strings.NewReader(c.text)
		start, lines, err := tailStart(r, int64(len(c.text)), c.n)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.text[start:]; got != c.want || lines != c.lines {
			t.Errorf("tail %d of %q: %q (%d lines), want %q (%d)", c.n, c.text, got, lines, c.want, c.lines)
		}
	}
	// Longer than one chunk.
	var b strings.Builder
	for i := range 3000 {
		b.WriteString(record(i))
	}
	text := b.String()
	start, _, _ := tailStart(strings.NewReader(text), int64(len(text)), 2500)
	if got := text[start:]; !strings.HasPrefix(got, record(500)) || !strings.HasSuffix(got, record(2999)) {
		t.Errorf("tail across chunks starts with %q", got[:20])
	}
}

func TestShowLastLinesAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, _ := Open(path, 1000)
	for i := range 30 { // 16 records fill the .1 file, 14 are in the current one
		l.Write([]byte(record(i)))
	}
	l.Close()
	cur, _ := os.ReadFile(path)
	inCur := strings.Count(string(cur), "\n")
	for _, n := range []int{1, inCur, inCur + 3, 1000} {
		var out bytes.Buffer
		if err := Show(context.Background(), &out, path, ShowOptions{Lines: n}); err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		old, _ := os.ReadFile(Rotated(path))
		total := strings.Count(string(old), "\n") + inCur
		for i := 30 - min(n, total); i < 30; i++ {
			want.WriteString(record(i))
		}
		if out.String() != want.String() {
			t.Errorf("last %d lines:\n%s\nwant:\n%s", n, out.String(), want.String())
		}
	}
	if err := Show(context.Background(), &bytes.Buffer{}, filepath.Join(t.TempDir(), "none.log"), ShowOptions{Lines: 5}); !os.IsNotExist(err) {
		t.Errorf("missing log: %v, want not-exist", err)
	}
}

// syncBuffer is a bytes.Buffer safe for the follower and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestShowFollowsRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, _ := Open(path, 1000)
	defer l.Close()
	l.Write([]byte(record(0)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- Show(ctx, &out, path, ShowOptions{Lines: 1, Follow: true, Poll: 5 * time.Millisecond}) }()

	var want strings.Builder
	want.WriteString(record(0))
	waitFor(t, "the last line", func() bool { return out.String() == want.String() })
	// Several rotations while following; lines are written in small bursts
	// so the follower sees some of them before and some after each rename.
	for i := 1; i < 80; i++ {
		l.Write([]byte(record(i)))
		want.WriteString(record(i))
		if i%7 == 0 {
			waitFor(t, fmt.Sprintf("line %d", i), func() bool { return strings.HasSuffix(out.String(), record(i)) })
		}
	}
	waitFor(t, "every line, once, in order", func() bool { return out.String() == want.String() })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("follow ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("follow did not stop when its context ended")
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
