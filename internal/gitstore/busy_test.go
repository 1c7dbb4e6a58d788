package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conflictRepo makes main and topic disagree about memory/a.md and returns
// the repository with main checked out.
func conflictRepo(t *testing.T) (root, dir string) {
	t.Helper()
	root, dir = newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "base\n")
	commitAll(t, root, "base")
	cli(t, root, "checkout", "-q", "-b", "topic")
	write(t, filepath.Join(dir, "a.md"), "topic\n")
	commitAll(t, root, "topic")
	cli(t, root, "checkout", "-q", "main")
	write(t, filepath.Join(dir, "a.md"), "main\n")
	commitAll(t, root, "main")
	return root, dir
}

// mustRefuse checks that Commit refuses with ErrBusy and commits nothing.
func mustRefuse(t *testing.T, r *Repo, root string) {
	t.Helper()
	write(t, filepath.Join(r.dir, "b.md"), "b\n")
	before := cli(t, root, "rev-parse", "HEAD")
	if _, err := r.Commit(context.Background(), "m", []string{"b.md"}); !errors.Is(err, ErrBusy) {
		t.Fatalf("Commit while busy: %v, want ErrBusy", err)
	}
	if after := cli(t, root, "rev-parse", "HEAD"); after != before {
		t.Fatal("Commit while busy moved HEAD")
	}
}

func TestBusyClean(t *testing.T) {
	root, dir := newRepo(t, "memory")
	r := open(t, dir)
	if err := r.Busy(); err != nil || r.InOperation() {
		t.Fatalf("fresh repository: Busy %v, InOperation %v", err, r.InOperation())
	}
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	if err := r.Busy(); err != nil || r.InOperation() {
		t.Fatalf("clean repository: Busy %v, InOperation %v", err, r.InOperation())
	}
}

func TestBusyIndexLock(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	write(t, filepath.Join(root, ".git", "index.lock"), "")
	r := open(t, dir)
	mustBusy(t, r, "index.lock")
	if r.InOperation() {
		t.Fatal("index.lock counted as an operation")
	}
	mustRefuse(t, r, root)
	remove(t, filepath.Join(root, ".git", "index.lock"))
	if err := r.Busy(); err != nil {
		t.Fatalf("after the lock is gone: %v", err)
	}
}

func TestBusyMerge(t *testing.T) {
	root, dir := conflictRepo(t)
	if _, err := cliErr(root, "merge", "topic"); err == nil {
		t.Fatal("merge did not conflict")
	}
	r := open(t, dir)
	mustBusy(t, r, "merge")
	if !r.InOperation() {
		t.Fatal("InOperation false during a conflicted merge")
	}
	mustRefuse(t, r, root)
	if _, err := r.Restore(context.Background(), "HEAD~1", ""); !errors.Is(err, ErrBusy) {
		t.Fatalf("Restore during a merge: %v, want ErrBusy", err)
	}
	cli(t, root, "merge", "--abort")
	if err := r.Busy(); err != nil || r.InOperation() {
		t.Fatalf("after merge --abort: Busy %v, InOperation %v", err, r.InOperation())
	}
}

func TestBusyRebase(t *testing.T) {
	root, dir := conflictRepo(t)
	cli(t, root, "checkout", "-q", "topic")
	if _, err := cliErr(root, "rebase", "main"); err == nil {
		t.Fatal("rebase did not conflict")
	}
	r := open(t, dir)
	mustBusy(t, r, "rebase")
	if !r.InOperation() {
		t.Fatal("InOperation false during a rebase")
	}
	mustRefuse(t, r, root)
	cli(t, root, "rebase", "--abort")
	if err := r.Busy(); err != nil || r.InOperation() {
		t.Fatalf("after rebase --abort: Busy %v, InOperation %v", err, r.InOperation())
	}
}

func TestBusyCherryPick(t *testing.T) {
	root, dir := conflictRepo(t)
	if _, err := cliErr(root, "cherry-pick", "topic"); err == nil {
		t.Fatal("cherry-pick did not conflict")
	}
	r := open(t, dir)
	mustBusy(t, r, "cherry-pick")
	if !r.InOperation() {
		t.Fatal("InOperation false during a cherry-pick")
	}
	cli(t, root, "cherry-pick", "--abort")
}

// A conflicted `git stash pop` leaves unmerged entries without any
// operation under way.
func TestBusyUnmerged(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "base\n")
	commitAll(t, root, "base")
	write(t, filepath.Join(dir, "a.md"), "stashed\n")
	cli(t, root, "stash", "-q")
	write(t, filepath.Join(dir, "a.md"), "committed\n")
	commitAll(t, root, "second")
	if _, err := cliErr(root, "stash", "pop"); err == nil {
		t.Fatal("stash pop did not conflict")
	}
	r := open(t, dir)
	mustBusy(t, r, "unmerged")
	if r.InOperation() {
		t.Fatal("unmerged entries counted as an operation")
	}
	mustRefuse(t, r, root)
}

func TestBusyDetached(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	cli(t, root, "checkout", "-q", "--detach")
	r := open(t, dir)
	mustBusy(t, r, "detached")
	// A checkout of an old commit is the user's git operation: nothing is
	// written into its tree until the branch is back.
	if b, ok := r.Operation(); !ok || b.Kind != BlockedByDetached || !strings.Contains(b.Fix, "git switch") {
		t.Fatalf("detached HEAD: Operation() = %+v, %v; want the detached blocker", b, ok)
	}
	if !r.InOperation() {
		t.Fatal("detached HEAD not counted as an operation")
	}
	mustRefuse(t, r, root)
	cli(t, root, "checkout", "-q", "-")
	if r.InOperation() {
		t.Fatal("back on the branch: still counted as an operation")
	}
}

// In a linked worktree the state files live in .git/worktrees/<name>, and
// commits go to the worktree's own branch.
func TestLinkedWorktree(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	wt := filepath.Join(t.TempDir(), "wt")
	cli(t, root, "worktree", "add", "-q", "-b", "side", wt)
	wtDir := filepath.Join(wt, "memory")

	r := open(t, wtDir)
	realWT, _ := filepath.EvalSymlinks(wt)
	if r.Root() != realWT || r.Rel() != "memory" {
		t.Fatalf("Root, Rel = %q, %q; want %q, memory", r.Root(), r.Rel(), realWT)
	}
	if got := changes(t, r); got != "" {
		t.Fatalf("Changes in a fresh worktree = %q", got)
	}
	write(t, filepath.Join(wtDir, "b.md"), "b\n")
	if got := changes(t, r); got != "A b.md\n" {
		t.Fatalf("Changes = %q", got)
	}

	// The main worktree's lock does not block this one; its own does.
	write(t, filepath.Join(root, ".git", "index.lock"), "")
	if err := r.Busy(); err != nil {
		t.Fatalf("Busy with the main worktree locked: %v", err)
	}
	remove(t, filepath.Join(root, ".git", "index.lock"))
	wtGitDir := filepath.Join(root, ".git", "worktrees", "wt")
	write(t, filepath.Join(wtGitDir, "index.lock"), "")
	mustBusy(t, r, "index.lock")
	remove(t, filepath.Join(wtGitDir, "index.lock"))

	hash, err := r.Commit(context.Background(), "m", []string{"b.md"})
	if err != nil {
		t.Fatal(err)
	}
	if side := cli(t, root, "rev-parse", "side"); side != hash {
		t.Fatalf("side = %s, commit %s", side, hash)
	}
	if main := cli(t, root, "log", "-1", "--format=%s", "main"); main != "first" {
		t.Fatalf("main moved: %q", main)
	}
	if h, err := r.History(5); err != nil || len(h) != 2 || h[0].Hash != hash {
		t.Fatalf("History in the worktree = %+v, %v", h, err)
	}
}

// firstUnmerged reads every index version git writes, with and without
// extended flags (intent-to-add) and with names of many lengths.
func TestFirstUnmerged(t *testing.T) {
	root, dir := conflictRepo(t)
	for i := range 40 {
		write(t, filepath.Join(dir, strings.Repeat("n", i+1)+".md"), "x\n")
		write(t, filepath.Join(root, "deep", strings.Repeat("d", 40-i), "f.md"), "x\n")
	}
	commitAll(t, root, "names")
	write(t, filepath.Join(dir, "zz-intent.md"), "x\n")
	cli(t, root, "add", "-N", "memory/zz-intent.md")
	index, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := firstUnmerged(index[:len(index)/2]); err == nil {
		t.Error("a truncated index parsed")
	}
	for _, conflicted := range []bool{false, true} {
		if conflicted {
			cli(t, root, "rm", "-q", "--cached", "memory/zz-intent.md")
			if _, err := cliErr(root, "merge", "topic"); err == nil {
				t.Fatal("merge did not conflict")
			}
			cli(t, root, "add", "-N", "memory/zz-intent.md")
		}
		for _, v := range []string{"2", "3", "4"} {
			cli(t, root, "update-index", "--index-version", v)
			index, err := os.ReadFile(filepath.Join(root, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := firstUnmerged(index)
			want := ""
			if conflicted {
				want = "memory/a.md"
			}
			if err != nil || got != want {
				t.Errorf("version %s, conflicted %v: firstUnmerged = %q, %v; want %q", v, conflicted, got, err, want)
			}
		}
	}
}
