package doctor

import (
	"context"
	"strings"
	"testing"
)

// TestRunHookProbe: a hook that exits 0 is fine; one that fails says what
// it wrote on standard error, else how it exited; the probe's payload
// names the event on stdin, as the agents send it.
func TestRunHookProbe(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{`grep -q '"hook_event_name":"SessionStart"'`, ""},
		{"echo 'no memory folder' >&2; exit 2", "fails: no memory folder"},
		{"exit 3", "fails: exit status 3"},
	} {
		if _, got := runHookProbe(context.Background(), c.command, "SessionStart"); got != c.want {
			t.Errorf("%q: %q, want %q", c.command, got, c.want)
		}
	}
}

// TestHookFindingsNothingWired: with no agent wired, no hook is checked.
func TestHookFindingsNothingWired(t *testing.T) {
	h := newAgentHome(t)
	if got := HookFindings(context.Background(), h.opts); len(got) != 0 {
		var b strings.Builder
		for _, f := range got {
			b.WriteString(f.Check + ": " + f.Problem + "\n")
		}
		t.Errorf("findings without any agent wired:\n%s", b.String())
	}
}

// TestHookFindingsWired: Claude Code's SessionStart hook, wired as install
// does, is run and found working.
func TestHookFindingsWired(t *testing.T) {
	h := newAgentHome(t)
	h.wire()
	for _, f := range HookFindings(context.Background(), h.opts) {
		if f.Check == "claude SessionStart hook" {
			if f.Problem != "" || !strings.HasPrefix(f.Note, "ran in") {
				t.Errorf("%+v", f)
			}
			return
		}
	}
	t.Error("claude SessionStart hook not checked")
}
