package facts

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/usage"
)

// Pick keeps the facts in scope and of the type asked, drops superseded
// ones, and with Unused the facts used since.
func TestPick(t *testing.T) {
	now := time.Now()
	snap := index.Snapshot{Memories: []*index.Memory{
		{File: "global.md", Type: "user"},
		{File: "app.md", Type: "project", Project: "app"},
		{File: "other.md", Type: "project", Project: "other"},
		{File: "old.md", Type: "user", SupersededBy: "global"},
	}}
	uses := map[string]usage.Use{"global.md": {Uses: 1, Last: now}}
	files := func(list []*index.Memory) string {
		var out []string
		for _, m := range list {
			out = append(out, m.File)
		}
		return strings.Join(out, " ")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{Project: "app"}, "global.md app.md"},
		{Filter{All: true}, "global.md app.md other.md"},
		{Filter{All: true, Type: "project"}, "app.md other.md"},
		{Filter{Project: "app", Unused: time.Hour, Now: now.Add(time.Minute)}, "app.md"},
	} {
		if got := files(Pick(dir, snap, uses, c.f)); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}

// A used fact's view says how often and when; JSON keeps the shape
// docs/JSON.md gives (flat, uses and last_used beside the fact's keys).
func TestUsedViewJSON(t *testing.T) {
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	m := &index.Memory{File: "a.md", Name: "a", Description: "d", Type: "user"}
	v := UsedViewOf(m, map[string]usage.Use{"a.md": {Uses: 3, Last: at}}, cite.NewChecker(t.TempDir()))
	data, _ := json.Marshal(v)
	if string(data) != `{"file":"a.md","name":"a","description":"d","type":"user","uses":3,"last_used":"2026-11-02T10:00:00Z"}` {
		t.Errorf("json %s", data)
	}
}
