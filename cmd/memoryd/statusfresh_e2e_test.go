package main

import (
	"os"
	"strings"
	"testing"
)

// slowSync is sync on with the default idle interval (5 min): a round at
// start and after the daemon's commits, none by itself during a test.
var slowSync = []string{"MEMORY_SYNC_ENABLED=1", "MEMORY_SYNC_INTERVAL_MS=300000"}

// TestStatusAfterSyncCommand: the daemon found the remote away and says
// offline; once it is back, memoryd sync pushes, and the status right
// after says so (not "1 ahead, offline") and when the next round is.
func TestStatusAfterSyncCommand(t *testing.T) {
	remote, _, b := syncWorlds(t)
	if err := os.Rename(remote, remote+".away"); err != nil {
		t.Fatal(err)
	}
	b.startDaemon(slowSync...)
	b.write("user-shell.md", memoryFile("user", "shell", "the user's shell", "fish"))
	waitFor(t, "offline with a commit queued", func() bool {
		st := b.status().Sync
		return !st.OfflineSince.IsZero() && st.Ahead >= 1
	})
	if err := os.Rename(remote+".away", remote); err != nil {
		t.Fatal(err)
	}
	if out, code := b.runCmd(slowSync, "sync"); code != 0 || !strings.Contains(out, "pushed         ") || strings.Contains(out, "pushed         0") {
		t.Fatalf("sync: exit %d\n%s", code, out)
	}
	out, _ := b.runCmd(slowSync, "status")
	if strings.Contains(out, "offline") || !strings.Contains(out, "0 ahead, 0 behind") {
		t.Errorf("status right after memoryd sync contradicts it:\n%s", out)
	}
	if !strings.Contains(out, "next round in 5 min (memoryd sync runs one now)") {
		t.Errorf("status does not say when the next round is:\n%s", out)
	}
}

// TestStatusAfterReviewAccept: a fact changed on both machines waits for
// review; right after review accept, status no longer counts it.
func TestStatusAfterReviewAccept(t *testing.T) {
	_, a, b := syncWorlds(t)
	b.startDaemon(slowSync...)
	waitFor(t, "B's first round", func() bool { return !b.status().Sync.LastSyncAt.IsZero() })
	a.write("user-name.md", memoryFile("user", "name", "the user's name", "Ada Lovelace"))
	a.git(a.notes, "commit", "-q", "-am", "name on A")
	a.git(a.notes, "push", "-q", "origin", "main")
	b.write("user-name.md", memoryFile("user", "name", "the user's name", "Ada King"))
	waitFor(t, "a review item on B", func() bool { return len(b.status().Sync.Review) == 1 })
	if out, _ := b.runCmd(slowSync, "status"); !strings.Contains(out, "1 for review") {
		t.Fatalf("status before the review:\n%s", out)
	}
	if out, code := b.runCmd(slowSync, "review", "accept", "user-name.md"); code != 0 {
		t.Fatalf("review accept: exit %d\n%s", code, out)
	}
	out, _ := b.runCmd(slowSync, "status")
	if strings.Contains(out, "for review") || strings.Contains(out, "wait in _inbox/") {
		t.Errorf("status right after review accept still counts the item:\n%s", out)
	}
}

// TestStatusAfterInstallSync: install --sync turns sync on in the config
// file while a daemon without it runs; status says so and how to apply it
// instead of showing no sync line at all.
func TestStatusAfterInstallSync(t *testing.T) {
	_, a, _ := syncWorlds(t)
	a.startDaemon()
	if out, code := a.runCmd(nil, "install", "--no-service", "--memory-dir", a.mem, "--sync"); code != 0 {
		t.Fatalf("install --sync: exit %d\n%s", code, out)
	}
	out, _ := a.runCmd(nil, "status")
	if !strings.Contains(out, "sync           on in the config file, but the running daemon started before: memoryd restart") {
		t.Errorf("status between install --sync and the restart:\n%s", out)
	}
}
