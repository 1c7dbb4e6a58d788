package memtest

import (
	"strings"
	"sync"
	"testing"
)

// TestFactParsesAsOne: the builder's text is a fact with the fields given.
func TestFactParsesAsOne(t *testing.T) {
	got := Fact("user", "shell", "Uses fish", "fish")
	want := "---\nname: shell\ndescription: Uses fish\nmetadata:\n  type: user\n---\nfish\n"
	if got != want {
		t.Fatalf("Fact = %q, want %q", got, want)
	}
}

// TestLogConcurrent: writers and a reader at once (run with -race).
func TestLogConcurrent(t *testing.T) {
	var l Log
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { l.Logger().Info("hello") })
	}
	_ = l.String()
	wg.Wait()
	if n := strings.Count(l.String(), "msg=hello"); n != 4 {
		t.Fatalf("%d lines logged, want 4:\n%s", n, l.String())
	}
}
