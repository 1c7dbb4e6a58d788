package gitsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRoundRemovesAStaleTrackingRefLock: a fetch killed with SIGKILL leaves
// refs/remotes/origin/main.lock, and git then refuses every later fetch.
// A fresh one pauses the round (a fetch may be running); one a minute old
// that no git process and nothing holds is removed and the round goes on.
func TestRoundRemovesAStaleTrackingRefLock(t *testing.T) {
	_, a, b := setup(t)
	a.write("user-shell.md", fact("shell", "the shell", "zsh"))
	a.commit("shell")
	if _, err := a.sync.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(b.notes, ".git", "refs", "remotes", "origin", "main.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := b.sync.Round(context.Background())
	if !errors.Is(err, ErrPaused) || !strings.Contains(res.Paused, "main.lock") {
		t.Fatalf("round with a fresh lock: %+v, %v", res, err)
	}
	old := time.Now().Add(-2 * time.Minute)
	os.Chtimes(lock, old, old)
	res, err = b.sync.Round(context.Background())
	if err != nil || res.Pulled != 1 || !strings.Contains(b.read("user-shell.md"), "zsh") {
		t.Fatalf("round with a stale lock: %+v, %v", res, err)
	}
	if _, err := os.Stat(lock); err == nil {
		t.Fatal("the stale lock is still there")
	}
}
