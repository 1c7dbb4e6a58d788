//go:build linux

package gitstore

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// blackHole listens on 127.0.0.1, accepts every connection and never
// answers; it returns the URL of a repository on it.
func blackHole(t *testing.T) (url string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 16)
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/notes.git", ch
}

// processesWith lists the pids of the processes whose command line holds s.
func processesWith(s string) []int {
	names, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, n := range names {
		pid, _ := strconv.Atoi(filepath.Base(n))
		if args := cmdline(pid); strings.Contains(strings.Join(args, " "), s) && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A fetch from a remote that accepts and never answers, cancelled: git and
// its `git remote-http` end together (the helper used to outlive git for
// good, and every later commit was "busy" because of it).
func TestCancelledFetchLeavesNoHelper(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	url, accepted := blackHole(t)
	cli(t, root, "remote", "add", "origin", url)
	r := open(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Fetch(ctx, Net{Timeout: time.Minute}, "origin", "main", "refs/remotes/origin/main")
		done <- err
	}()
	select {
	case <-accepted:
	case <-time.After(20 * time.Second):
		t.Fatal("git never connected to the remote")
	}
	waitUntil(t, "git remote-http to start", func() bool { return len(processesWith(url)) >= 2 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fetch: %v", err)
	}
	waitUntil(t, "git and its helper to end", func() bool { return len(processesWith(url)) == 0 })
	if err := r.Busy(); err != nil {
		t.Errorf("Busy after the fetch: %v", err)
	}
}

// startMarked starts a git that waits on its standard input in the
// repository, with env added to its environment.
func startMarked(t *testing.T, root string, env ...string) int {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "--stdin")
	cmd.Dir = root
	cmd.Env = append(cmd.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	waitUntil(t, "git to start", func() bool { return strings.Contains(strings.Join(cmdline(pid), " "), "hash-object") })
	return pid
}

// A git left by a memoryd that is gone, and a fetch or push of a running
// memoryd's, are no "other git command"; the user's git and a running
// memoryd's commit are.
func TestMarkedGitProcesses(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadMark := markVar + "=" + strconv.Itoa(dead.Process.Pid)
	liveMark := markVar + "=" + strconv.Itoa(os.Getpid())
	for _, c := range []struct {
		name   string
		env    []string
		blocks bool
	}{
		{"the user's", nil, true},
		{"a running memoryd's commit", []string{liveMark}, true},
		{"a running memoryd's fetch", []string{liveMark, netVar}, false},
		{"a dead memoryd's helper", []string{deadMark}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, dir := newRepo(t, "memory")
			write(t, filepath.Join(dir, "a.md"), "a\n")
			commitAll(t, root, "first")
			r := open(t, dir)
			startMarked(t, root, c.env...)
			if c.blocks {
				waitUntil(t, "Busy to see the git", func() bool { return r.Busy() != nil })
				mustBusy(t, r, "another git command is running")
				return
			}
			if err := r.Busy(); err != nil {
				t.Errorf("Busy: %v", err)
			}
		})
	}
}

// The temporary index of a partial commit killed with SIGKILL is removed
// once stale; a fresh one (a commit under way) stays.
func TestStaleNextIndexRemoved(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	r := open(t, dir)
	left := filepath.Join(root, ".git", "next-index-999999.lock")
	write(t, left, "x")
	if err := r.Busy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err != nil {
		t.Fatal("a fresh temporary index was removed")
	}
	old := time.Now().Add(-2 * time.Minute)
	os.Chtimes(left, old, old)
	if err := r.Busy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Fatal("the stale temporary index is still there")
	}
}

// A fetch from a remote that accepts and never answers ends at its
// timeout, with git's helper, however long the remote stays silent.
func TestFetchTimeoutAgainstABlackHole(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	url, _ := blackHole(t)
	cli(t, root, "remote", "add", "origin", url)
	r := open(t, dir)
	start := time.Now()
	_, err := r.Fetch(context.Background(), Net{Timeout: 2 * time.Second}, "origin", "main", "refs/remotes/origin/main")
	if err == nil {
		t.Fatal("a fetch from a silent remote succeeded")
	}
	if took := time.Since(start); took > 2*time.Second+cancelGrace {
		t.Errorf("the fetch took %s with a 2 s timeout", took)
	}
	waitUntil(t, "git and its helper to end", func() bool { return len(processesWith(url)) == 0 })
}
