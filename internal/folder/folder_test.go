package folder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/memtest"
)

func TestMain(m *testing.M) { gittest.Main(m) }

var ctx = context.Background()

// fact is the text of the user fact name.
func fact(name, body string) []byte { return []byte(memtest.Fact("user", name, name, body)) }

// newFolder is a memory folder in a new notes repository with one commit.
func newFolder(t *testing.T) (*Folder, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "memory")
	os.MkdirAll(dir, 0o755)
	gittest.Run(t, root, "init", "-q")
	os.WriteFile(filepath.Join(dir, "user-a.md"), fact("a", "A."), 0o644)
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-q", "-m", "start")
	f, err := Open(Options{Dir: dir, StateDir: t.TempDir(), Budget: index.Budget{Lines: 8}})
	if err != nil || f.Repo() == nil {
		t.Fatal(err)
	}
	return f, root
}

// TestCommitTakesOnlyItsOwn: a transaction commits what it wrote and the
// indexes memoryd generated — not a person's pending edit of another fact,
// nor their own MEMORY.notes.md — with the structured trailers.
func TestCommitTakesOnlyItsOwn(t *testing.T) {
	f, root := newFolder(t)
	os.WriteFile(filepath.Join(f.Dir(), "user-hand.md"), fact("hand", "Typed."), 0o644)
	os.WriteFile(filepath.Join(f.Dir(), "MEMORY.notes.md"), []byte("my own notes\n"), 0o644)
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	if err := tx.Write("user-b.md", fact("b", "B."), ""); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Commit(ctx, commitmsg.Message{Subject: "memory: add user-b.md (test)", Kind: commitmsg.KindAdd, Writer: commitmsg.Person})
	if err != nil || res.Commit == "" {
		t.Fatalf("commit: %+v %v", res, err)
	}
	files := gittest.Run(t, root, "show", "--name-only", "--format=", "HEAD")
	if strings.Contains(files, "user-hand.md") || strings.Contains(files, "MEMORY.notes.md") || !strings.Contains(files, "memory/user-b.md") || !strings.Contains(files, "memory/MEMORY.md") {
		t.Fatalf("committed:\n%s", files)
	}
	if msg := gittest.Run(t, root, "log", "-1", "--format=%B"); !strings.Contains(msg, "Memoryd-Kind: add\nMemoryd-Writer: person") {
		t.Fatalf("message:\n%s", msg)
	}
	if n := strings.Count(string(must(os.ReadFile(filepath.Join(f.Dir(), "MEMORY.md")))), "\n"); n > 8 {
		t.Fatalf("MEMORY.md has %d lines, over the budget of 8", n)
	}
}

// TestWriteRechecks: a file changed since the plan read it is not written.
func TestWriteRechecks(t *testing.T) {
	f, _ := newFolder(t)
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	a := tx.Snapshot().Memories[0]
	os.WriteFile(filepath.Join(f.Dir(), "user-a.md"), fact("a", "Changed by hand."), 0o644)
	if err := tx.Write("user-a.md", fact("a", "Model."), a.Hash); !errors.Is(err, index.ErrChanged) {
		t.Fatalf("write over a change: %v", err)
	}
	if got := string(must(os.ReadFile(filepath.Join(f.Dir(), "user-a.md")))); !strings.Contains(got, "Changed by hand.") {
		t.Fatalf("the hand edit was overwritten:\n%s", got)
	}
}

// TestBeginRefusesDuringAGitOperation: a detached HEAD, like a merge, is
// the user's git operation: nothing begins.
func TestBeginRefusesDuringAGitOperation(t *testing.T) {
	f, root := newFolder(t)
	gittest.Run(t, root, "checkout", "-q", "--detach")
	if _, err := f.Begin(ctx, "test"); !errors.Is(err, ErrInOperation) || errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "detached") {
		t.Fatalf("Begin on a detached HEAD: %v", err)
	}
	gittest.Run(t, root, "checkout", "-q", "-")
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatalf("Begin back on the branch: %v", err)
	}
	tx.Close()
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestCommitWaitsOutABriefLock: git busy for a moment (another program's
// index.lock, gone 300 ms later) does not fail a person's write.
func TestCommitWaitsOutABriefLock(t *testing.T) {
	f, root := newFolder(t)
	lock := filepath.Join(root, ".git", "index.lock")
	tx, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	if err := tx.Write("user-b.md", fact("b", "B."), ""); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(lock, nil, 0o644)
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		<-time.After(300 * time.Millisecond)
		os.Remove(lock)
	}()
	res, err := tx.Commit(ctx, commitmsg.Message{Subject: "memory: add user-b.md (test)", Kind: commitmsg.KindAdd, Writer: commitmsg.Person})
	<-gone
	if err != nil || res.Commit == "" {
		t.Fatalf("commit with a brief index.lock: %+v %v", res, err)
	}
}
