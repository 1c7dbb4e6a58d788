package undo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/compactor"
	"github.com/memoryd/memoryd/gitstore"
	"github.com/memoryd/memoryd/index"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/state"
)

func TestMain(m *testing.M) { gittest.Main(m) }

func TestTarget(t *testing.T) {
	hist := []gitstore.Commit{
		{Hash: "aaaa1111", Subject: "memory: update user-a.md"},
		{Hash: "bbbb2222", Subject: compactor.CompactionPrefix + " (merged 1, deleted 0, rewrote 0, flagged 0)"},
		{Hash: "cccc3333", Subject: compactor.CheckpointSubject},
		{Hash: "dddd4444", Subject: compactor.CheckpointSubject},
	}
	cases := []struct {
		commit, rev, err string
		later            int
	}{
		{commit: "", rev: "bbbb2222^", later: 1},
		{commit: "BBBB", rev: "bbbb2222^", later: 1},
		{commit: "cccc3333", rev: "cccc3333", later: 2},
		{commit: "dddd", rev: "dddd4444", later: 3},
		{commit: "aaaa", err: "neither a compaction nor a checkpoint"},
		{commit: "abc", err: "not among the last"}, // too short to match
		{commit: "eeee", err: "not among the last"},
	}
	for _, c := range cases {
		p, err := Target(hist, c.commit)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Target(%q) = %+v, %v; want error %q", c.commit, p, err, c.err)
			}
			continue
		}
		if err != nil || p.Rev != c.rev || p.Later != c.later {
			t.Errorf("Target(%q) = %+v, %v; want rev %s later %d", c.commit, p, err, c.rev, c.later)
		}
	}
	if _, err := Target(hist[:1], ""); err == nil || !strings.Contains(err.Error(), "no compaction to undo") {
		t.Errorf("no compaction: %v", err)
	}
}

// fixture is a notes repository whose memory folder went through a
// checkpoint and a compaction that deleted user-b.md.
func fixture(t *testing.T) (dir string, repo *gitstore.Repo) {
	t.Helper()
	root := t.TempDir()
	gittest.Run(t, root, "init", "-q")
	dir = filepath.Join(root, "memory")
	os.Mkdir(dir, 0o755)
	write(t, dir, "user-a.md", "a")
	write(t, dir, "user-b.md", "b")
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-q", "-m", compactor.CheckpointSubject)
	os.Remove(filepath.Join(dir, "user-b.md"))
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-q", "-m", compactor.CompactionPrefix+" (merged 0, deleted 1, rewrote 0, flagged 0)")
	repo, err := gitstore.Open(dir, gitstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

func write(t *testing.T, dir, name, desc string) {
	t.Helper()
	m := index.NewMemory("user", strings.TrimPrefix(strings.TrimSuffix(name, ".md"), "user-"), "fact "+desc, "body of "+desc)
	if err := os.WriteFile(filepath.Join(dir, name), m.Format(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunRestoresCheckpointAndKeepsPendingInHistory(t *testing.T) {
	dir, repo := fixture(t)
	write(t, dir, "user-c.md", "c") // a hand edit not yet committed
	sd := t.TempDir()
	res, err := Run(context.Background(), Options{Dir: dir, StateDir: sd, Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "user-b.md")); err != nil {
		t.Fatalf("the deleted fact is not back: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "user-c.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the later file should be undone too (it stays in history): %v", err)
	}
	if res.Later != 1 || res.Commit == "" || !strings.Contains(res.What, "checkpoint before compaction") {
		t.Fatalf("result %+v", res)
	}
	root := filepath.Dir(dir)
	log := gittest.Run(t, root, "log", "--format=%s")
	if !strings.HasPrefix(log, "memory: ") || !strings.Contains(log, "memory: undo compaction") ||
		!strings.Contains(log, "memory: update user-c.md") {
		t.Fatalf("history:\n%s", log)
	}
	// The folder was settled: MEMORY.md lists the restored facts and is committed.
	idx, err := os.ReadFile(filepath.Join(dir, index.IndexFile))
	if err != nil || !strings.Contains(string(idx), "user-b.md") {
		t.Fatalf("MEMORY.md: %v\n%s", err, idx)
	}
	if st := gittest.Run(t, root, "status", "--porcelain"); st != "" {
		t.Fatalf("left uncommitted:\n%s", st)
	}
	// Undoing the same compaction again has nothing left to change.
	if _, err := Run(context.Background(), Options{Dir: dir, StateDir: sd, Repo: repo, Commit: res.Commit[:4]}); err == nil {
		t.Fatal("an undo commit is not a compaction; want an error")
	}
}

func TestRunRefusesWhileLocked(t *testing.T) {
	dir, repo := fixture(t)
	sd := t.TempDir()
	l, err := state.TryLock(sd, state.WriteLock, "pid 1, test")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	_, err = Run(context.Background(), Options{Dir: dir, StateDir: sd, Repo: repo})
	if !errors.Is(err, state.ErrLocked) || !strings.Contains(err.Error(), "pid 1, test") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "user-b.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("restored while another writer held the lock")
	}
}
