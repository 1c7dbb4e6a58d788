package folder

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/state"
)

// TestOpenScreensEveryCommit: a Folder from Open commits through the secret
// screen, with no option to leave it off: a fact holding a key is held, the
// rest of the transaction goes in.
func TestOpenScreensEveryCommit(t *testing.T) {
	f, root := newFolder(t)
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	key := "AKIA" + "IOSFODNN7EXAMPLE"
	if err := tx.Write("user-key.md", fact("key", "aws_access_key_id = "+key), ""); err != nil {
		t.Fatal(err)
	}
	if err := tx.Write("user-b.md", fact("b", "B."), ""); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Commit(ctx, commitmsg.Message{Subject: "memory: test", Kind: commitmsg.KindAdd, Writer: commitmsg.Person})
	if err != nil || len(res.Held) != 1 || res.Held[0].Path != "user-key.md" || !strings.Contains(res.Held[0].Reason, "user-key.md:") {
		t.Fatalf("commit: %+v %v", res, err)
	}
	files := gittest.Run(t, root, "show", "--name-only", "--format=", "HEAD")
	if strings.Contains(files, "user-key.md") || !strings.Contains(files, "memory/user-b.md") {
		t.Fatalf("committed:\n%s", files)
	}
}

// TestOpenRefusesWhatIsNotAFolder: a missing folder says how to make one;
// a folder outside git opens without a repository and says why.
func TestOpenRefusesWhatIsNotAFolder(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := Open(Options{Dir: missing}); err == nil || !strings.Contains(err.Error(), "memoryd install --memory-dir "+missing) {
		t.Fatalf("missing folder: %v", err)
	}
	plain := t.TempDir()
	f, err := Open(Options{Dir: plain, StateDir: t.TempDir()})
	if err != nil || f.Repo() != nil || !errors.Is(f.RepoErr(), gitstore.ErrNoRepo) {
		t.Fatalf("folder outside git: %v, repo error %v", err, f.RepoErr())
	}
	f, err = Open(Options{Dir: plain, StateHome: t.TempDir(), WithoutRepo: true})
	if err != nil || f.Repo() != nil || f.StateDir() == "" {
		t.Fatalf("without repository: %v", err)
	}
}

// TestBeginRefusesWhileGitIsBusy: a lock file that stays (another program's
// git, not stale) refuses the transaction with ErrBusy once the wait is
// over; the write lock is released.
func TestBeginRefusesWhileGitIsBusy(t *testing.T) {
	f, root := newFolder(t)
	lock := filepath.Join(root, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	if _, err := f.Begin(ctx, "test"); !errors.Is(err, ErrBusy) || !errors.Is(err, gitstore.ErrBusy) || errors.Is(err, ErrInOperation) {
		t.Fatalf("Begin with index.lock held: %v", err)
	}
	os.Remove(lock)
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatalf("Begin once the lock is gone: %v", err)
	}
	tx.Close()
}

// TestRestoreAndCommitPending: the pending hand edit goes in first, in a
// commit of its own; Restore puts a file back without the re-check and
// commits it with the transaction.
func TestRestoreAndCommitPending(t *testing.T) {
	f, root := newFolder(t)
	os.WriteFile(filepath.Join(f.Dir(), "user-hand.md"), fact("hand", "Typed."), 0o644)
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	c, err := tx.CommitPending(ctx, nil)
	if err != nil || len(c.Paths) != 1 || c.Paths[0] != "user-hand.md" {
		t.Fatalf("commit pending: %+v %v", c, err)
	}
	if err := tx.Restore("user-a.md", nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Restore("sub/user-c.md", fact("c", "C.")); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx, commitmsg.Message{Subject: "memory: undo", Kind: commitmsg.KindUndo, Writer: commitmsg.Person}); err != nil {
		t.Fatal(err)
	}
	files := gittest.Run(t, root, "show", "--name-status", "--no-renames", "--format=", "HEAD")
	if !strings.Contains(files, "D\tmemory/user-a.md") || !strings.Contains(files, "A\tmemory/sub/user-c.md") {
		t.Fatalf("committed:\n%s", files)
	}
	if st := gittest.Run(t, root, "status", "--porcelain"); st != "" {
		t.Fatalf("left pending:\n%s", st)
	}
}

// TestMergedRescans: files git brought under the lock are in the snapshot
// and the indexes the commit settles.
func TestMergedRescans(t *testing.T) {
	f, _ := newFolder(t)
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	os.WriteFile(filepath.Join(f.Dir(), "user-pulled.md"), fact("pulled", "From the remote."), 0o644)
	if err := tx.Merged("user-pulled.md"); err != nil {
		t.Fatal(err)
	}
	if n := len(tx.Snapshot().Memories); n != 2 {
		t.Fatalf("snapshot after Merged has %d facts, want 2", n)
	}
	if _, err := tx.Commit(ctx, commitmsg.Message{Subject: "memory: sync", Kind: commitmsg.KindSync, Writer: commitmsg.Person}); err != nil {
		t.Fatal(err)
	}
	if idx := string(must(os.ReadFile(filepath.Join(f.Dir(), "MEMORY.md")))); !strings.Contains(idx, "user-pulled.md") {
		t.Fatalf("MEMORY.md:\n%s", idx)
	}
}

// TestFolderCommitPendingTakesTheLock: the daemon's commit of hand edits
// does not run beside a transaction: it refuses at once with ErrBusy, and
// commits once the transaction is over.
func TestFolderCommitPendingTakesTheLock(t *testing.T) {
	f, _ := newFolder(t)
	os.WriteFile(filepath.Join(f.Dir(), "user-hand.md"), fact("hand", "Typed."), 0o644)
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.CommitPending(ctx, "daemon", nil); !errors.Is(err, ErrBusy) || !errors.Is(err, state.ErrLocked) {
		t.Fatalf("commit beside a transaction: %v", err)
	}
	tx.Close()
	c, err := f.CommitPending(ctx, "daemon", nil)
	if err != nil || len(c.Paths) != 1 || c.Paths[0] != "user-hand.md" {
		t.Fatalf("commit after it: %+v %v", c, err)
	}
}
