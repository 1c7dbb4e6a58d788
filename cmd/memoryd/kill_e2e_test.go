package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillNineLoop kills the daemon with SIGKILL at random points of its
// work — alone, and with its whole process group (its git children too) —
// 50 times while facts are being written. Then one clean start must commit
// every fact with no manual repair (no stale index.lock, no half-staged
// index left to fix), and git fsck must find the repository sound.
func TestKillNineLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of kill -9 trials")
	}
	w := newWorld(t)
	rng := rand.New(rand.NewPCG(7, 11))
	want := map[string]string{}
	const trials = 50
	for trial := range trials {
		p := w.startGroup()
		for range 1 + rng.IntN(3) {
			name := fmt.Sprintf("user-fact-%d.md", rng.IntN(12))
			content := memoryFile("user", strings.TrimSuffix(strings.TrimPrefix(name, "user-"), ".md"),
				fmt.Sprintf("Fact as of trial %d", trial), fmt.Sprintf("Written in trial %d.", trial))
			w.write(name, content)
			want[name] = content
		}
		// Somewhere in the debounce (300 ms), the commit, or just after.
		time.Sleep(time.Duration(rng.IntN(900)) * time.Millisecond)
		if trial%2 == 0 {
			syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
		} else {
			syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
		<-p.done
	}
	p := w.startDaemon()
	waitFor(t, "every fact committed after the last start", func() bool {
		for name, content := range want {
			if w.show("memory/"+name) != content {
				return false
			}
		}
		return true
	})
	p.stop(t)
	for name, content := range want {
		if got, _ := os.ReadFile(filepath.Join(w.mem, name)); string(got) != content {
			t.Errorf("%s lost or changed:\n%s", name, got)
		}
	}
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("left uncommitted or half-staged:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(w.notes, ".git", "index.lock")); err == nil {
		t.Error("a stale index.lock was left behind")
	}
	w.fsck()
}

// startGroup starts `memoryd run` in a process group of its own (so its
// git children can be killed with it), with the world's environment plus
// extra, and waits for its first rebuild.
func (w *world) startGroup(extra ...string) *proc {
	w.t.Helper()
	p := &proc{done: make(chan struct{})}
	p.cmd = exec.Command(binPath, "run")
	p.cmd.Env = append(append([]string{}, w.env...), extra...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	w.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
	})
	waitFor(w.t, "the daemon's first rebuild", func() bool {
		return !w.status().Index.RebuiltAt.IsZero() && w.status().PID == p.cmd.Process.Pid
	})
	return p
}
