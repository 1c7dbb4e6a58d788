package gitstore

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Commit commits the memory paths only: a file the user staged elsewhere
// stays staged and out of the commit; so does an unlisted memory file.
func TestCommitOnlyMemoryPaths(t *testing.T) {
	root, dir := newRepo(t, "memory")
	ctx := context.Background()
	write(t, filepath.Join(dir, "old.md"), "old\n")
	write(t, filepath.Join(dir, "mod.md"), "mod\n")
	write(t, filepath.Join(root, "notes.md"), "notes\n")
	commitAll(t, root, "first")

	write(t, filepath.Join(root, "notes.md"), "user's staged edit\n")
	write(t, filepath.Join(root, "staged-new.md"), "user's new file\n")
	cli(t, root, "add", "notes.md", "staged-new.md")
	write(t, filepath.Join(root, "notes.md"), "user's unstaged edit on top\n")

	remove(t, filepath.Join(dir, "old.md"))
	write(t, filepath.Join(dir, "mod.md"), "mod 2\n")
	write(t, filepath.Join(dir, "new.md"), "new\n")
	write(t, filepath.Join(dir, "unlisted.md"), "not in this commit\n")
	write(t, filepath.Join(dir, ":odd *name.md"), "literal pathspec\n")

	r := open(t, dir)
	paths := []string{"old.md", "mod.md", "new.md", ":odd *name.md"}
	hash, err := r.Commit(ctx, CommitMessage(paths), paths)
	if err != nil {
		t.Fatal(err)
	}
	if head := cli(t, root, "rev-parse", "HEAD"); hash != head {
		t.Fatalf("Commit returned %s, HEAD is %s", hash, head)
	}
	show := cli(t, root, "show", "--name-status", "--format=%s", "HEAD")
	want := "memory: update old.md, mod.md, new.md and 1 more\n\n" +
		"A\tmemory/:odd *name.md\nM\tmemory/mod.md\nA\tmemory/new.md\nD\tmemory/old.md"
	if show != want {
		t.Fatalf("git show:\n%s\nwant\n%s", show, want)
	}
	if staged := cli(t, root, "diff", "--cached", "--name-only"); staged != "notes.md\nstaged-new.md" {
		t.Fatalf("still staged = %q, want the user's two files", staged)
	}
	if got := cli(t, root, "show", ":notes.md"); got != "user's staged edit" {
		t.Fatalf("staged notes.md = %q", got)
	}
	if got := changes(t, r); got != "A unlisted.md\n" {
		t.Fatalf("Changes after commit = %q", got)
	}
	stat := cli(t, root, "show", "--stat", "--format=", "HEAD")
	if strings.Contains(stat, "notes.md") || strings.Contains(stat, "unlisted") {
		t.Fatalf("git show --stat mentions other files:\n%s", stat)
	}
}

func TestCommitNothing(t *testing.T) {
	root, dir := newRepo(t, "memory")
	ctx := context.Background()
	write(t, filepath.Join(dir, "a.md"), "a\n")
	write(t, filepath.Join(root, "other.md"), "o\n")
	commitAll(t, root, "first")
	write(t, filepath.Join(root, "other.md"), "changed\n")
	cli(t, root, "add", "other.md")
	r := open(t, dir)
	for _, paths := range [][]string{nil, {"a.md"}, {"never-existed.md"}} {
		if _, err := r.Commit(ctx, "m", paths); !errors.Is(err, ErrNothingToCommit) {
			t.Errorf("Commit(%q) = %v, want ErrNothingToCommit", paths, err)
		}
	}
	if n := cli(t, root, "rev-list", "--count", "HEAD"); n != "1" {
		t.Fatalf("%s commits, want 1", n)
	}
}

func TestCommitRejectsOutsidePaths(t *testing.T) {
	_, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "sub", "x.md"), "x\n")
	r := open(t, dir)
	for _, p := range []string{"../x.md", "/etc/passwd", "a/../../b.md", "./a.md", "", "sub", ".git/config", "x/.GIT/y"} {
		if _, err := r.Commit(context.Background(), "m", []string{p}); err == nil || errors.Is(err, ErrNothingToCommit) {
			t.Errorf("Commit(%q) = %v, want a rejection", p, err)
		}
	}
}

func TestCommitSkipsIgnoredNewFiles(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(root, ".gitignore"), "memory/MEMORY.md\n")
	commitAll(t, root, "first")
	write(t, filepath.Join(dir, "MEMORY.md"), "generated\n")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	r := open(t, dir)
	if got := changes(t, r); got != "A a.md\n" {
		t.Fatalf("Changes = %q, want the ignored file left out", got)
	}
	if _, err := r.Commit(context.Background(), "m", []string{"MEMORY.md", "a.md"}); err != nil {
		t.Fatal(err)
	}
	if got := cli(t, root, "show", "--name-only", "--format=", "HEAD"); got != "memory/a.md" {
		t.Fatalf("committed %q", got)
	}
	if _, err := r.Commit(context.Background(), "m", []string{"MEMORY.md"}); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("Commit of an ignored file alone: %v, want ErrNothingToCommit", err)
	}
}

func TestCommitFirstInEmptyRepo(t *testing.T) {
	root, dir := newRepo(t, "")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	write(t, filepath.Join(dir, "sub", "b.md"), "b\n")
	r := open(t, dir)
	if got := changes(t, r); got != "A a.md\nA sub/b.md\n" {
		t.Fatalf("Changes = %q", got)
	}
	hash, err := r.Commit(context.Background(), "m", []string{"a.md", "sub/b.md"})
	if err != nil {
		t.Fatal(err)
	}
	if head := cli(t, root, "rev-parse", "HEAD"); head != hash {
		t.Fatalf("hash %s, HEAD %s", hash, head)
	}
	if got := changes(t, r); got != "" {
		t.Fatalf("Changes after the root commit = %q", got)
	}
}

// An index.lock taken by another git process between memoryd's add and its
// commit yields ErrBusy, and a retry once it is gone commits.
func TestCommitLockRaceMidway(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(root, ".git", "index.lock")
	wrapper := filepath.Join(t.TempDir(), "git")
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = commit ] && : > '" + lock + "'; done\nexec '" + realGit + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{GitBin: wrapper})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "a.md"), "a2\n")
	_, err = r.Commit(context.Background(), "m", []string{"a.md"})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Commit with a lock appearing midway: %v, want ErrBusy", err)
	}
	remove(t, lock)
	if _, err := open(t, dir).Commit(context.Background(), "m", []string{"a.md"}); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if got := cli(t, root, "show", "HEAD:memory/a.md"); got != "a2" {
		t.Fatalf("committed a.md = %q", got)
	}
}

// Canceling a commit interrupts git instead of killing it, so that git
// removes its index.lock. The stand-in git here takes the lock, waits, and
// removes the lock on SIGINT as git does; a SIGKILL would leave it.
func TestCommitCancelInterrupts(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(root, ".git", "index.lock")
	bin := t.TempDir()
	wrapper := filepath.Join(bin, "git")
	// The test waits for taken, not for the lock: git add's own index.lock
	// comes and goes before, and a SIGINT at the wrong moment of git add
	// can leave it behind (which Busy's stale-lock rule is for).
	taken := filepath.Join(bin, "taken")
	script := "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = commit ]; then\n" +
		"  trap 'rm -f \"" + lock + "\"; kill $pid 2>/dev/null; exit 130' INT\n" +
		"  : > '" + lock + "'; : > '" + taken + "'; sleep 60 & pid=$!\n" +
		"  wait $pid; exit 1\nfi; done\nexec '" + realGit + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{GitBin: wrapper})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "a.md"), "a2\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Commit(ctx, "m", []string{"a.md"})
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !exists(taken) {
		if time.Now().After(deadline) {
			t.Fatal("the stand-in git never took the lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit after cancel: %v, want context.Canceled", err)
	}
	if exists(lock) {
		t.Fatal("index.lock left behind: git was killed, not interrupted")
	}
}

func TestCommitCanceled(t *testing.T) {
	_, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := open(t, dir).Commit(ctx, "m", []string{"a.md"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit with a canceled context: %v", err)
	}
}
