package index

import (
	"strings"
	"testing"
)

// TestAbsorb: a merged file keeps the keys memoryd does not read from every
// file it replaces — at the top and under metadata, comments and all, an
// alias expanded — and never takes a known key or overwrites one it has.
func TestAbsorb(t *testing.T) {
	parse := func(rel, text string) *Memory {
		t.Helper()
		m, err := Parse(rel, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	base := parse("feedback-tabs.md", "---\nname: tabs\ndescription: Prefers tabs\ntags: [style]\nmetadata:\n  type: feedback\n  owner: ana\n---\nUse tabs.\n")
	other := parse("feedback-indent.md", "---\nname: indent\ndescription: Indent with tabs\ntags: [go]\n"+
		"links: &l\n  - https://example.org/style # the guide\nsee: *l\nmetadata:\n  type: feedback\n  project: memoryd\n  owner: bo\n  reviewed: 2025-01-02\n---\nTabs.\n")
	third := parse("user-x.md", "---\nname: x\nmetadata:\n  type: user\n  reviewed: 1999-01-01\n  ticket: T-1\n---\nX.\n")
	m := *base
	m.Description, m.Body = "Tabs, always", "Always tabs.\n"
	m.Absorb(base, other, third)
	got := string(m.Format())
	for _, want := range []string{
		"tags: [style]", // m's own value wins
		"links:\n  - https://example.org/style # the guide", // taken, with its comment
		"see:\n  - https://example.org/style",               // an alias expanded
		"owner: ana",                                        // m's own
		"reviewed: 2025-01-02",                              // the first other's
		"ticket: T-1",                                       // the second other's
		"description: Tabs, always",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("merged file lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"project:", "name: indent", "owner: bo", "1999", "&l", "*l"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("merged file has %q:\n%s", unwanted, got)
		}
	}
	again, err := Parse(m.File, m.Format())
	if err != nil || string(again.Format()) != got {
		t.Errorf("the merged file does not read back as written: %v", err)
	}

	plain := *base
	plain.Absorb(parse("user-y.md", "---\nname: y\nmetadata:\n  type: user\n---\nY.\n"))
	if string(plain.Format()) != string(base.Format()) {
		t.Errorf("nothing to take, yet the file changed:\n%s", plain.Format())
	}
}
