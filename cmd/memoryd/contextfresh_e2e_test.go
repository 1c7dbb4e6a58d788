package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// addOnAThenWait starts both daemons, waits until both pushed all and
// are idle (B holds what the remote has, both next rounds the interval
// away), adds a fact on A, waits for it on the remote, and then 5 s more:
// the person walks to the other machine and starts an agent.
func addOnAThenWait(t *testing.T, remote string, a, b *world) {
	t.Helper()
	a.startDaemon(slowSync...)
	b.startDaemon(slowSync...)
	waitFor(t, "both daemons in step and idle", func() bool {
		sa, sb := a.status().Sync, b.status().Sync
		return b.head() == a.git(remote, "rev-parse", "main") && sa.Ahead == 0 && sb.Ahead == 0 && !sa.Running && !sb.Running &&
			time.Until(sa.NextAt) > time.Minute && time.Until(sb.NextAt) > time.Minute
	})
	added := time.Now()
	if out, code := a.runCmd(slowSync, "add", "I use fish as my shell"); code != 0 {
		t.Fatalf("add on A: exit %d\n%s", code, out)
	}
	waitFor(t, "A's fact on the remote", func() bool {
		return strings.Contains(a.git(remote, "ls-tree", "-r", "--name-only", "main"), "user-i-use-fish-as-my-shell.md")
	})
	waitFor(t, "5 s after the add", func() bool { return time.Since(added) >= 5*time.Second })
}

// TestContextFreshAtSessionStart: two daemons with the default idle sync
// interval (5 min) and a bare remote. A fact added on A reaches the
// remote within seconds; memoryd context on B — what an agent session
// loads when it starts — 5 s after the add holds it, although B's next
// idle round is minutes away.
func TestContextFreshAtSessionStart(t *testing.T) {
	remote, a, b := syncWorlds(t)
	addOnAThenWait(t, remote, a, b)
	out, code := b.runCmd(slowSync, "context")
	if code != 0 || !strings.Contains(out, "I use fish as my shell") {
		t.Fatalf("context on B 5 s after the add on A: exit %d, the fact is missing\n%s", code, out)
	}
	if next := b.status().Sync.NextAt; time.Until(next) < time.Minute {
		t.Errorf("B's idle interval changed: next round %s", next)
	}
}

// TestClaudeSessionFreshAtStart is the same on B with the real Claude Code:
// a session started on B 5 s after the add on A gets the fact at session
// start (its SessionStart hook runs memoryd context), as the fake model's
// first request shows.
func TestClaudeSessionFreshAtStart(t *testing.T) {
	claude := needtool.Path(t, "claude")
	remote, a, b := syncWorlds(t)
	w := &agentWorld{world: b, srv: llmtest.NewServer(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Text("ok") })}
	w.appA = filepath.Join(b.home, "src", "app-a")
	if err := os.MkdirAll(w.appA, 0o755); err != nil {
		t.Fatal(err)
	}
	w.git(w.appA, "init", "-q")
	w.install(nil, "--claude")
	addOnAThenWait(t, remote, a, b)
	w.agent(w.appA, w.claudeEnv(), claude, "-p", "FIRST-TURN: which shell do I use?")
	first := firstWith(t, w.srv, "starting the session", func(r llmtest.Recorded) bool { return strings.Contains(r.User, "FIRST-TURN") })
	mustCarry(t, "the session's first request on B", first, "I use fish as my shell")
}

// TestContextRoundWithoutDaemon: with sync on and no daemon running on B,
// memoryd context runs the round itself: a fact pushed from A is in it.
func TestContextRoundWithoutDaemon(t *testing.T) {
	_, a, b := syncWorlds(t)
	a.write("user-shell.md", memoryFile("user", "shell", "Uses fish as the shell", "fish"))
	a.write("MEMORY.md", "# Memory\n\n## User\n- [Shell](user-shell.md) — Uses fish as the shell\n")
	a.git(a.notes, "add", "-A")
	a.git(a.notes, "commit", "-q", "-m", "shell on A")
	a.git(a.notes, "push", "-q", "origin", "main")
	out, code := b.runCmd(slowSync, "context")
	if code != 0 || !strings.Contains(out, "Uses fish as the shell") {
		t.Fatalf("context on B without a daemon: exit %d, A's fact is missing\n%s", code, out)
	}
	if out, _ := b.runCmd(nil, "context"); !strings.Contains(out, "Uses fish") {
		t.Errorf("the pulled fact is not in B's folder afterwards:\n%s", out)
	}
}
