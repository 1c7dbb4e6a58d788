//go:build linux

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSyncKillNineDuringRounds kills one of two syncing daemons with
// SIGKILL at a random moment after both wrote a fact, 20 times: in their
// commits, fetches, merges and pushes. Half the kills take the daemon's git
// children with it (fetch, merge, push cut short), sparing the remote's own
// side (git-receive-pack, git-upload-pack, working in the bare repository),
// as a crash of this machine spares a server. After each kill plain git
// works in the clone (status, fsck, no merge or rebase left under way);
// after the daemons restart and settle every fact written on either side
// is on both and on the remote, with one history, no lock file left, and
// sync reporting no problem.
func TestSyncKillNineDuringRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute or two of kill -9 trials")
	}
	remote, a, b := syncWorlds(t)
	// The remote answers after 150 ms, as one across a network does: a
	// window for the kills to land in a fetch or a push.
	for _, side := range []string{"upload", "receive"} {
		script := filepath.Join(t.TempDir(), "slow-"+side+"-pack")
		if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 0.15\nexec git-"+side+"-pack \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, w := range []*world{a, b} {
			w.git(w.notes, "config", "remote.origin."+side+"pack", script)
		}
	}
	env := []string{"MEMORY_SYNC_ENABLED=1", "MEMORY_SYNC_INTERVAL_MS=300"}
	rng := rand.New(rand.NewPCG(21, 9))
	procs := map[*world]*proc{a: a.startGroup(env...), b: b.startGroup(env...)}
	names := map[*world]string{a: "a", b: "b"}
	var facts []string
	phases := []string{" fetch ", " push ", " merge", " commit"}
	caught := map[string]int{}
	const rounds = 20
	for round := range rounds {
		for _, w := range []*world{a, b} {
			name := fmt.Sprintf("user-%s-%02d.md", names[w], round)
			w.write(name, memoryFile("user", strings.TrimSuffix(name, ".md"), "a fact of round "+strconv.Itoa(round), "Written on "+names[w]+"."))
			facts = append(facts, name)
		}
		// The victim is killed while its daemon runs the git command
		// wanted (fetch, merge, push, commit), a random moment (up to 100 ms) into it,
		// or at a random moment when none shows within 2.5 s.
		victim := a
		if rng.IntN(2) == 1 {
			victim = b
		}
		want := phases[round%len(phases)]
		p := procs[victim]
		group := rng.IntN(2) == 1
		deadline := time.Now().Add(2500 * time.Millisecond)
		for time.Now().Before(deadline) && !strings.Contains(strings.Join(groupCommands(p.cmd.Process.Pid), "\n"), want) {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
		at := killGroupButRemote(p.cmd.Process.Pid, remote, group)
		t.Logf("round %d: killed %s's daemon (its git children too: %v) waiting for %q while git ran %q", round, names[victim], group, want, at)
		for _, ph := range phases {
			if strings.Contains(strings.Join(at, "\n"), ph) {
				caught[ph]++
			}
		}
		<-p.done
		victim.plainGitWorks(round)
		procs[victim] = victim.startGroup(env...)
	}
	if caught[" fetch "] == 0 || caught[" push "] == 0 {
		t.Errorf("no kill came during a fetch or a push: %v", caught)
	}
	// A kill in a git command may leave its lock file (index.lock, a ref's
	// lock); the daemon removes one once it is a minute old with no git
	// process running and nothing holding it (gitstore.Busy), so the wait
	// allows for that minute.
	for _, w := range []*world{a, b} {
		if locks := lockFiles(w.notes); len(locks) > 0 {
			t.Logf("lock files left by the kills in %s: %v", w.notes, locks)
		}
	}
	waitWithin(t, 2*time.Minute, "every fact on both machines and the remote, one history", func() bool {
		for _, w := range []*world{a, b} {
			for _, f := range facts {
				if w.show("memory/"+f) == "" {
					return false
				}
			}
		}
		h := a.head()
		return h == b.head() && h == a.git(remote, "rev-parse", "main")
	})
	for _, w := range []*world{a, b} {
		waitFor(t, "sync settled without a problem", func() bool {
			st := w.status().Sync
			return st.Problem == "" && st.Paused == "" && st.Ahead == 0 && st.Behind == 0 && !st.LastSyncAt.IsZero()
		})
		if st := w.git(w.notes, "status", "--porcelain"); st != "" {
			t.Errorf("%s: left uncommitted or half-staged:\n%s", w.notes, st)
		}
		w.plainGitWorks(rounds)
		w.noMarkers()
		if got := inboxFiles(w); len(got) != 0 {
			t.Errorf("%s: review items from facts nobody edited twice: %v", w.notes, got)
		}
	}
	for _, dir := range []string{a.notes, b.notes, remote} {
		if locks := lockFiles(dir); len(locks) > 0 {
			t.Errorf("lock files are left: %v", locks)
		}
	}
	if out, ok := a.gitOK(remote, "fsck", "--no-progress"); !ok {
		t.Errorf("git fsck of the remote:\n%s", out)
	}
}

// plainGitWorks fails unless git status and git fsck work in the clone and
// no merge or rebase is left under way.
func (w *world) plainGitWorks(round int) {
	w.t.Helper()
	if out, ok := w.gitOK(w.notes, "status", "--porcelain"); !ok {
		w.t.Fatalf("round %d: git status in %s:\n%s", round, w.notes, out)
	}
	if out, ok := w.gitOK(w.notes, "fsck", "--no-progress"); !ok {
		w.t.Fatalf("round %d: git fsck in %s:\n%s", round, w.notes, out)
	}
	for _, f := range []string{"MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD"} {
		if _, err := os.Stat(filepath.Join(w.notes, ".git", f)); err == nil {
			w.t.Fatalf("round %d: %s left in %s", round, f, w.notes)
		}
	}
}

// killGroupButRemote kills with SIGKILL the daemon pgid and, when group,
// the rest of its process group — its git children — except the processes
// working in the remote repository (the server's side of a fetch or push).
// It returns the commands that were running in the group.
func killGroupButRemote(pgid int, remote string, group bool) []string {
	procs := groupProcs(pgid) // before the kill: then they are the daemon's descendants
	syscall.Kill(pgid, syscall.SIGKILL)
	var running []string
	for _, p := range procs {
		running = append(running, p.cmd)
		if group && !strings.HasPrefix(p.cwd, remote) {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
	return running
}

// groupCommands lists the command lines of the processes in the group
// pgid but its leader.
func groupCommands(pgid int) []string {
	var cmds []string
	for _, p := range groupProcs(pgid) {
		cmds = append(cmds, p.cmd)
	}
	return cmds
}

type groupProc struct {
	pid      int
	cmd, cwd string
}

// groupProcs lists the processes in the group pgid but its leader, and
// the leader's descendants (memoryd runs each git in a group of its own).
func groupProcs(pgid int) []groupProc {
	type info struct{ ppid, pgrp int }
	all := map[int]info{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces, so read
		// after its closing parenthesis.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		all[pid] = info{ppid, pgrp}
	}
	descends := func(pid int) bool {
		for range 64 {
			p, ok := all[pid]
			if !ok || p.ppid <= 1 {
				return false
			}
			if p.ppid == pgid {
				return true
			}
			pid = p.ppid
		}
		return false
	}
	var procs []groupProc
	for pid, p := range all {
		if pid == pgid || p.pgrp != pgid && !descends(pid) {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		cwd, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
		procs = append(procs, groupProc{pid: pid, cmd: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")), cwd: cwd})
	}
	return procs
}

// lockFiles lists the git lock files under dir.
func lockFiles(dir string) []string {
	var locks []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
		return nil
	})
	return locks
}

// waitWithin is waitFor with a deadline of its own.
func waitWithin(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
