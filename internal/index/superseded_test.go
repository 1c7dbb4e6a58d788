package index

import (
	"strings"
	"testing"
)

// TestSuperseded: metadata.superseded_by and superseded_at are read the
// same by the fast path and by yaml.v3, written by Format next to the other
// keys (unknown keys kept), and a superseded fact is in no index.
func TestSuperseded(t *testing.T) {
	plain := "---\nname: old\ndescription: Old\nmetadata:\n  type: project\n  project: app\n  superseded_by: project-new.md\n  superseded_at: 2026-11-26\n---\nIt was so.\n"
	quoted := strings.Replace(plain, "superseded_by: project-new.md", `superseded_by: "project-new.md" # why`, 1)
	for _, text := range []string{plain, quoted} {
		m, err := Parse("project-old.md", []byte(text))
		if err != nil || m.SupersededBy != "project-new.md" || m.SupersededAt != "2026-11-26" || !m.Superseded() {
			t.Fatalf("%v %+v\n%s", err, m, text)
		}
	}
	cur, err := Parse("project-old.md", []byte("---\nname: old\ndescription: Old\nx-note: kept\nmetadata:\n  type: project\n  project: app\n---\nIt was so.\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := *cur
	c.SupersededBy, c.SupersededAt = "project-new.md", "2026-11-26"
	out := string(c.Format())
	if want := "---\nname: old\ndescription: Old\nx-note: kept\nmetadata:\n  type: project\n  project: app\n  superseded_by: project-new.md\n  superseded_at: 2026-11-26\n---\nIt was so.\n"; out != want {
		t.Errorf("formatted:\n%s\nwant:\n%s", out, want)
	}
	back, err := Parse("project-old.md", []byte(out))
	if err != nil || back.SupersededBy != "project-new.md" || string(back.Format()) != out {
		t.Errorf("round trip: %v %+v", err, back)
	}
	newer := NewMemory("project", "new", "New", "It is so now.\n")
	newer.Project = "app"
	snap := Snapshot{Memories: []*Memory{newer, back}}
	for slug, data := range BuildAll(snap, DefaultBudget()) {
		if strings.Contains(string(data), "project-old.md") {
			t.Errorf("%s lists the superseded fact:\n%s", slug, data)
		}
	}
	if idx := string(BuildIndex(snap, "app", DefaultBudget())); !strings.Contains(idx, "(project-new.md)") {
		t.Errorf("the project index lacks the current fact:\n%s", idx)
	}
}
