package facts

import (
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/usage"
)

// TestUnused: a fact neither used nor written in the period is proposed;
// one used lately, a pinned one, a user fact and the inbox are not.
func TestUnused(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.Local)
	old := func(file, typ string) *index.Memory {
		m := index.NewMemory(typ, file, "d", "b")
		m.File, m.Updated = file, "2026-01-01"
		return m
	}
	pinned := old("feedback-pinned.md", "feedback")
	pinned.Pinned = true
	snap := index.Snapshot{Memories: []*index.Memory{
		old("feedback-stale.md", "feedback"), old("feedback-used.md", "feedback"), pinned,
		old("user-name.md", "user"), old(index.InboxDir+"/feedback-x.md", "feedback"),
	}}
	uses := map[string]usage.Use{"feedback-used.md": {Uses: 2, Last: now.Add(-24 * time.Hour)}}
	got := Unused(t.TempDir(), snap, uses, 90*24*time.Hour, now)
	if len(got) != 1 || got[0] != "feedback-stale.md" {
		t.Errorf("unused %v", got)
	}
}
