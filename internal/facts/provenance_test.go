package facts

import (
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

// TestStamp: a write appends its source and dates the fact; earlier
// sources stay.
func TestStamp(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	m := index.NewMemory("feedback", "tabs", "prefers tabs", "x")
	m.Sources = []index.Source{{Agent: "earlier"}}
	src := NewSource("cli", now, "/work")
	Stamp(m, src, now)
	if len(m.Sources) != 2 || m.Sources[1].Agent != "cli" || m.Sources[1].At != "2026-11-28T09:30:00Z" || m.Sources[1].Cwd != "/work" {
		t.Errorf("sources %+v", m.Sources)
	}
	if m.Updated != "2026-11-28" {
		t.Errorf("updated %q", m.Updated)
	}
}

// TestModelCites: a model's cites are recorded only for a fact of the
// session's own project; a path that is not a file there is dropped.
func TestModelCites(t *testing.T) {
	if got := ModelCites([]string{"a.go"}, "", t.TempDir()); got != nil {
		t.Errorf("a global fact cites %v", got)
	}
	if got := ModelCites([]string{"missing.go", "../outside.go"}, "some-project", t.TempDir()); len(got) != 0 {
		t.Errorf("cites %v", got)
	}
}
