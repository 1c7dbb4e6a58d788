//go:build linux

package gitstore

import (
	"bytes"
	"context"
	"errors"
	"github.com/memoryd/memoryd/internal/shell"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startGit starts the git CLI in dir as the user would, not through
// memoryd, and returns it with its standard input held open. It is killed
// at the end of the test if still running.
func startGit(t *testing.T, dir string, args ...string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "LC_ALL=C")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second // a grandchild may hold the output open
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, stdin
}

// waitUntil polls cond for up to 20 seconds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// No memoryd commit moves HEAD while another git process works on the
// repository: here a `git fetch` whose upload-pack on the other side is
// slow, the state in which a commit made the user's `git pull` abort with
// "fetch updated the current branch head".
func TestBusyWhileGitFetches(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	remote, _ := newRepo(t, "")
	write(t, filepath.Join(remote, "r.txt"), "r\n")
	commitAll(t, remote, "remote")
	cli(t, root, "remote", "add", "origin", remote)

	scripts := t.TempDir()
	proceed := filepath.Join(scripts, "proceed")
	uploadPack := filepath.Join(scripts, "slow-upload-pack")
	script := "#!/bin/sh\nwhile [ ! -e '" + proceed + "' ]; do sleep 0.05; done\nexec git upload-pack \"$@\"\n"
	if err := os.WriteFile(uploadPack, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	fetch, _ := startGit(t, root, "fetch", "--upload-pack="+uploadPack, "origin")
	t.Cleanup(func() { os.WriteFile(proceed, nil, 0o644) }) // runs first: the script ends

	r := open(t, dir)
	waitUntil(t, "Busy to see git fetch", func() bool { return r.Busy() != nil })
	err := r.Busy()
	pid := strconv.Itoa(fetch.Process.Pid)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "git fetch") || !strings.Contains(err.Error(), "pid "+pid) {
		t.Fatalf("Busy() = %v, want ErrBusy naming git fetch, pid %s", err, pid)
	}
	if b, ok := r.Blocker(); !ok || b.Kind != BlockedByGit || b.PID != fetch.Process.Pid {
		t.Fatalf("Blocker() = %+v, %v", b, ok)
	}
	mustRefuse(t, r, root)

	write(t, proceed, "")
	if err := fetch.Wait(); err != nil {
		t.Fatalf("git fetch: %v\n%s", err, fetch.Stdout)
	}
	if err := r.Busy(); err != nil {
		t.Fatalf("Busy() after the fetch ended = %v", err)
	}
	if _, err := r.Commit(context.Background(), "m", []string{"b.md"}); err != nil {
		t.Fatalf("Commit after the fetch ended: %v", err)
	}
}

// A git command that writes (hash-object -w) counts while it runs; one
// that only reads and may stay for hours (an editor's cat-file --batch)
// does not; nor do git commands in another repository.
func TestBusyOtherGitCommands(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	other, _ := newRepo(t, "")
	r := open(t, dir)

	startGit(t, root, "cat-file", "--batch")
	startGit(t, other, "hash-object", "-w", "--stdin")
	reader, _ := startGit(t, root, "-c", "core.pager=cat", "log", "-1")
	reader.Wait()

	// Give the two long-lived processes time to be seen.
	waitUntil(t, "both processes running", func() bool {
		procs, known := r.gitProcesses()
		return known && len(procs) == 0 && countGit(t) >= 2
	})
	if err := r.Busy(); err != nil {
		t.Fatalf("Busy() with cat-file --batch here and hash-object elsewhere = %v", err)
	}

	writer, stdin := startGit(t, filepath.Join(dir), "hash-object", "-w", "--stdin")
	waitUntil(t, "Busy to see hash-object", func() bool { return r.Busy() != nil })
	mustBusy(t, r, "git hash-object -w --stdin (pid "+strconv.Itoa(writer.Process.Pid)+")")
	stdin.Close()
	if err := writer.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := r.Busy(); err != nil {
		t.Fatalf("Busy() after hash-object ended = %v", err)
	}
}

// countGit counts the git processes of this test binary's children.
func countGit(t *testing.T) int {
	n := 0
	names, _ := os.ReadDir(procDir)
	buf := make([]byte, 256)
	for _, e := range names {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, _, ppid, ok := readStat(pid, buf); ok && comm == "git" && ppid == os.Getpid() {
			n++
		}
	}
	return n
}

// A lock file left by a git that was killed (SIGKILL cannot be caught, so
// git cannot remove it) blocks commits, with a message naming the file, its
// age and the fix, until it is provably stale; then Busy removes it, logs a
// warning, and commits go on by themselves.
func TestBusyRemovesStaleIndexLock(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	var logs bytes.Buffer
	r, err := Open(dir, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(root, ".git", "index.lock")

	// A real git holds the lock: busy, naming that git.
	holder, _ := startGit(t, root, "update-index", "--stdin")
	waitUntil(t, "git update-index to take index.lock", func() bool { return exists(lock) })
	mustBusy(t, r, "git update-index --stdin (pid "+strconv.Itoa(holder.Process.Pid)+")")

	// Killed: the lock stays. While it is young it is only reported.
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	if !exists(lock) {
		t.Fatal("the killed git removed its lock")
	}
	mustBusy(t, r, "index.lock exists")
	mustBusy(t, r, "rm "+shell.Quote(lock))
	mustRefuse(t, r, root)

	// Old, but held open by a process: still only reported.
	old := time.Now().Add(-2 * staleLockAge)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(lock)
	if err != nil {
		t.Fatal(err)
	}
	mustBusy(t, r, "has it open")
	f.Close()

	// Stale: Blocker says so without touching it; Busy removes it.
	b, ok := r.Blocker()
	if !ok || b.Kind != BlockedByLock || b.Path != lock || b.Age < staleLockAge ||
		!strings.Contains(b.Fix, "memoryd removes it") || !exists(lock) {
		t.Fatalf("Blocker() = %+v, %v (lock exists: %v)", b, ok, exists(lock))
	}
	if err := r.Busy(); err != nil {
		t.Fatalf("Busy() with a stale lock = %v", err)
	}
	if exists(lock) {
		t.Fatal("the stale lock is still there")
	}
	if !strings.Contains(logs.String(), "removed a stale git lock file") || !strings.Contains(logs.String(), lock) {
		t.Fatalf("no warning naming the lock in the log:\n%s", logs.String())
	}
	write(t, filepath.Join(dir, "a.md"), "a2\n")
	if _, err := r.Commit(context.Background(), "m", []string{"a.md"}); err != nil {
		t.Fatalf("Commit after the stale lock went: %v", err)
	}
}

// The branch's ref lock, left by a git killed while it moved the branch,
// is handled like index.lock (git commit would otherwise fail forever with
// "cannot lock ref").
func TestBusyRemovesStaleRefLock(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	lock := filepath.Join(root, ".git", "refs", "heads", "main.lock")
	write(t, lock, cli(t, root, "rev-parse", "HEAD")+"\n")
	r := open(t, dir)
	mustBusy(t, r, "refs/heads/main.lock exists")
	old := time.Now().Add(-2 * staleLockAge)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "a.md"), "a2\n")
	if _, err := r.Commit(context.Background(), "m", []string{"a.md"}); err != nil {
		t.Fatalf("Commit with a stale ref lock: %v", err)
	}
}

// BenchmarkGitProcesses is the cost of the scan for other git processes
// that Busy makes, with about 300 processes on the machine.
func BenchmarkGitProcesses(b *testing.B) {
	root, err := os.MkdirTemp("", "bench-procs-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(root)
	cli(b, root, "init", "-q")
	r := open(b, root)
	names, _ := os.ReadDir(procDir)
	var sleepers []*exec.Cmd
	defer func() {
		for _, c := range sleepers {
			c.Process.Kill()
			c.Wait()
		}
	}()
	for n := len(names); n < 300; n++ {
		c := exec.Command("sleep", "600")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		sleepers = append(sleepers, c)
	}
	names, _ = os.ReadDir(procDir)
	b.Logf("%d entries in %s", len(names), procDir)
	for b.Loop() {
		if procs, known := r.gitProcesses(); !known || len(procs) != 0 {
			b.Fatalf("gitProcesses = %v, %v", procs, known)
		}
	}
}
