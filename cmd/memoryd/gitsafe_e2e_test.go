package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Machine B scrubs a fact from the remote's history (a rewrite and a force
// push); A's daemon, syncing every 400 ms, pauses and never pushes its old
// history back. status and doctor name the pause; memoryd sync
// --take-remote takes the remote's history and keeps A's own new fact for
// review.
func TestSyncPausesOnARewrittenRemote(t *testing.T) {
	remote, a, b := syncWorlds(t)
	a.startDaemon(syncEnv...)
	a.write("project-leak.md", memoryFile("project", "leak", "the staging password", "It was shared by mistake."))
	onRemote := func(rel string) bool {
		out, _ := a.gitOK(remote, "log", "--all", "--format=%H", "--", rel)
		return strings.TrimSpace(out) != ""
	}
	waitFor(t, "the leak on the remote", func() bool { return onRemote("memory/project-leak.md") })
	b.git(b.notes, "pull", "-q", "--no-rebase", "origin", "main")
	cmd := []string{"filter-branch", "-f", "--index-filter", "git rm -q --cached --ignore-unmatch memory/project-leak.md", "--", "main"}
	b.git(b.notes, cmd...)
	b.git(b.notes, "push", "-q", "--force", "origin", "main")
	scrubbed := b.git(remote, "rev-parse", "main")
	if onRemote("memory/project-leak.md") {
		t.Fatal("the scrub did not take")
	}

	a.write("user-local.md", memoryFile("user", "local", "only on A", "Kept."))
	rounds := map[time.Time]bool{a.status().Sync.NextAt: true}
	waitFor(t, "3 sync rounds after the force push", func() bool {
		rounds[a.status().Sync.NextAt] = true
		return len(rounds) > 3
	})
	if onRemote("memory/project-leak.md") {
		t.Fatal("A pushed the scrubbed file back to the remote")
	}
	if got := b.git(remote, "rev-parse", "main"); got != scrubbed {
		t.Fatalf("the remote moved while sync was paused: %s, was %s", got, scrubbed)
	}
	if p := a.status().Sync.Paused; !strings.Contains(p, "rewritten") {
		t.Fatalf("A's sync is not paused for the rewrite: %q", p)
	}
	out, _ := a.runCmd(nil, "status")
	if !strings.Contains(out, "paused") || !strings.Contains(out, "rewritten") || !strings.Contains(out, "--take-remote") {
		t.Fatalf("status does not name the pause:\n%s", out)
	}
	out, _ = a.runCmd(syncEnv, "doctor")
	if !strings.Contains(out, "rewritten") || !strings.Contains(out, "project-leak.md") {
		t.Fatalf("doctor does not name the rewrite:\n%s", out)
	}

	out, code := a.runCmd(nil, "sync", "--take-remote")
	if code != 0 || !strings.Contains(out, "_inbox/user-local.md") {
		t.Fatalf("sync --take-remote (%d):\n%s", code, out)
	}
	waitFor(t, "A's sync to go on", func() bool {
		st := a.status().Sync
		return st.Paused == "" && st.Ahead == 0 && a.head() == a.git(remote, "rev-parse", "main")
	})
	if onRemote("memory/project-leak.md") || a.read("project-leak.md") != "" {
		t.Fatal("the scrubbed file came back")
	}
	if !onRemote("memory/_inbox/user-local.md") {
		t.Fatal("A's own fact was not kept for review")
	}
}

// blackHole listens on 127.0.0.1, accepts every connection and never
// answers; it returns the URL of a repository on it and the number of
// connections accepted so far.
func blackHole(t *testing.T) (url string, accepted func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String() + "/notes.git", func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}

// processesWith lists the pids of the processes whose command line holds s.
func processesWith(s string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			pids = append(pids, pid)
		}
	}
	return pids
}

// A remote that accepts and never answers: after the daemon stops, none
// of its git processes is left (git remote-http used to stay, and every
// later commit was refused as "another git command is running"); with the
// URL fixed and the daemon restarted, memoryd add commits.
func TestBlackHoleRemoteLeavesNoGit(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to list processes")
	}
	w := newWorld(t)
	w.write("user-name.md", memoryFile("user", "name", "the user's name", "Ada"))
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "first fact")
	url, accepted := blackHole(t)
	w.git(w.notes, "remote", "add", "origin", url)
	w.git(w.notes, "config", "branch.main.remote", "origin")
	w.git(w.notes, "config", "branch.main.merge", "refs/heads/main")
	p := w.startDaemon(syncEnv...)
	waitFor(t, "the daemon's fetch to reach the remote", func() bool { return accepted() > 0 && len(processesWith(url)) > 0 })
	p.stop(t)
	waitFor(t, "no git of the daemon's left", func() bool { return len(processesWith(url)) == 0 })

	bare := filepath.Join(t.TempDir(), "notes.git")
	w.git(w.home, "init", "-q", "--bare", bare)
	w.git(w.notes, "remote", "set-url", "origin", bare)
	w.startDaemon(syncEnv...)
	out, code := w.runCmd(nil, "add", "--type", "user", "--name", "shell", "--description", "Uses zsh", "Uses zsh everywhere.")
	if code != 0 {
		t.Fatalf("memoryd add after fixing the URL (%d):\n%s", code, out)
	}
	if got := w.git(w.notes, "log", "--format=%s", "-1", "--", "memory/user-shell.md"); got == "" {
		t.Fatal("the fact was not committed")
	}
	waitFor(t, "the fact on the fixed remote", func() bool {
		out, _ := w.gitOK(bare, "log", "--format=%H", "main", "--", "memory/user-shell.md")
		return strings.TrimSpace(out) != ""
	})
}

// 20 memoryd add and 5 MCP memory_save while the daemon's own fetch is
// under way (the remote's upload-pack waits until released): every one
// succeeds and is committed, none is told "another git command is running".
func TestSavesDuringTheDaemonsFetch(t *testing.T) {
	_, w, _ := syncWorlds(t)
	scripts := t.TempDir()
	started, release, done := filepath.Join(scripts, "started"), filepath.Join(scripts, "release"), filepath.Join(scripts, "done")
	wrapper := filepath.Join(scripts, "slow-upload-pack")
	script := "#!/bin/sh\n: > '" + started + "'\nwhile [ ! -e '" + release + "' ]; do sleep 0.05; done\n: > '" + done + "'\nexec git upload-pack \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w.git(w.notes, "config", "remote.origin.uploadpack", wrapper)
	t.Cleanup(func() { os.WriteFile(release, nil, 0o644) })
	w.startDaemon(syncEnv...)
	waitFor(t, "the daemon's fetch to start", func() bool { _, err := os.Stat(started); return err == nil })

	var names []string
	for i, topic := range savedTopics[:20] {
		name := "add-" + strconv.Itoa(i)
		out, code := w.runCmd(nil, "add", "--type", "user", "--name", name, "--description", topic[0], topic[1])
		if code != 0 {
			t.Fatalf("memoryd add %d during the fetch (%d):\n%s", i, code, out)
		}
		names = append(names, "user-"+name+".md")
	}
	cs, _ := w.mcpSession(w.home, "claude-code")
	for i, topic := range savedTopics[20:] {
		name := "mcp-" + strconv.Itoa(i)
		out, isErr := callTool(t, cs, "memory_save", map[string]any{"type": "feedback", "name": name,
			"description": topic[0], "body": topic[1]})
		if isErr {
			t.Fatalf("memory_save %d during the fetch: %s", i, out)
		}
		names = append(names, "feedback-"+name+".md")
	}
	if _, err := os.Stat(done); err == nil {
		t.Fatal("the fetch ended before the saves did: the test proves nothing")
	}
	committed := w.git(w.notes, "ls-files", "memory")
	for _, n := range names {
		if !strings.Contains(committed, "memory/"+n) {
			t.Errorf("%s is not committed", n)
		}
	}
	os.WriteFile(release, nil, 0o644)
}

// savedTopics are 25 facts unlike each other (description, body).
var savedTopics = [][2]string{
	{"Prefers vim", "Edits with vim and a dark theme."},
	{"Shell is zsh", "Uses zsh with few plugins."},
	{"Drinks green tea", "No coffee after noon."},
	{"Deploys on Fridays never", "Releases go out Tuesday mornings."},
	{"Runs Debian at home", "The home server is a Debian box."},
	{"Likes table tests", "Go tests are written as tables."},
	{"Reviews in the morning", "Code review happens before standup."},
	{"Writes docs in markdown", "Design notes live in docs/ as markdown."},
	{"Keyboard is split", "Types on an ergonomic split keyboard."},
	{"Timezone is Berlin", "Works on Central European Time."},
	{"Avoids ORMs", "Writes SQL by hand with sqlc."},
	{"Commits are signed", "Every commit is signed with an ssh key."},
	{"Bikes to work", "Commutes by bicycle in summer."},
	{"Reads Rust weekly", "Follows This Week in Rust."},
	{"Uses tmux panes", "Splits tmux into three panes."},
	{"Speaks French", "Answers French-speaking customers."},
	{"Builds with make", "Every repository has a Makefile."},
	{"Backs up nightly", "Restic backs the laptop up each night."},
	{"Plays chess", "Plays blitz chess at lunch."},
	{"Hates tabs in YAML", "YAML files use two spaces."},
	{"Short commit subjects", "Commit subjects stay under 50 characters."},
	{"No emojis in logs", "Log lines are plain ASCII."},
	{"Explain before coding", "Describe the plan before editing files."},
	{"Run the linter first", "golangci-lint runs before every push."},
	{"Ask before deleting", "Confirm before removing any file."},
}
