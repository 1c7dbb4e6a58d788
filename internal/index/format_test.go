package index

import (
	"strings"
	"testing"
)

// checkFormat asserts Format(m) == want and that formatting is stable.
func checkFormat(t *testing.T, m *Memory, want string) {
	t.Helper()
	got := string(m.Format())
	if got != want {
		t.Fatalf("Format:\n%s\nwant:\n%s", got, want)
	}
	again, err := Parse(m.File, []byte(got))
	if err != nil {
		t.Fatalf("Format output does not parse: %v", err)
	}
	if twice := string(again.Format()); twice != got {
		t.Fatalf("Format not stable:\n%s\nthen:\n%s", got, twice)
	}
}

const withUnknownKeys = `---
# Written by hand.
name: prefers-tabs
description: Prefers tabs over spaces
tags: [style, editor]
metadata:
  type: feedback
  source: review # where it came from
  confidence: 0.9
links:
  - editor-setup
---
Use tabs.
`

func TestFormatKeepsUnknownKeys(t *testing.T) {
	m := mustParse(t, "feedback-prefers-tabs.md", withUnknownKeys)
	checkFormat(t, m, withUnknownKeys)

	c := *m
	c.Description = "Tabs, never spaces"
	c.Body = "Always tabs.\r\nNo exceptions."
	c.Readonly = true
	checkFormat(t, &c, `---
# Written by hand.
name: prefers-tabs
description: Tabs, never spaces
tags: [style, editor]
metadata:
  type: feedback
  readonly: true
  source: review # where it came from
  confidence: 0.9
links:
  - editor-setup
---
Always tabs.
No exceptions.
`)
	if string(m.Format()) != withUnknownKeys {
		t.Fatal("formatting a changed copy changed the original")
	}
}

func TestFormatNormalises(t *testing.T) {
	m := mustParse(t, "x.md", "\uFEFF--- \r\nname:   x # n\r\nmetadata:\r\n    type: user\r\n---\r\nbody")
	// Unchanged: the frontmatter is kept as it was, with LF endings.
	checkFormat(t, m, "---\nname:   x # n\nmetadata:\n    type: user\n---\nbody\n")
	// Changed: re-encoded.
	c := *m
	c.Description = "d"
	checkFormat(t, &c, "---\nname: x # n\ndescription: d\nmetadata:\n  type: user\n---\nbody\n")
}

func TestFormatChangedFields(t *testing.T) {
	tests := []struct {
		name, in string
		change   func(m *Memory)
		want     string
	}{
		{"derived name is not written", "---\ndescription: d\n---\n", func(*Memory) {},
			"---\ndescription: d\n---\n"},
		{"new title goes after name", "---\nname: x\ndescription: d\n---\n", func(m *Memory) { m.Title = "X [1]" },
			"---\nname: x\ntitle: X [1]\ndescription: d\n---\n"},
		{"new name goes first", "---\ndescription: d\n---\n", func(m *Memory) { m.Name = "n" },
			"---\nname: n\ndescription: d\n---\n"},
		{"empty removes", "---\nname: x\ntitle: T\ndescription: d\nmetadata:\n  type: user\n  readonly: true\n---\n",
			func(m *Memory) { m.Title, m.Type, m.Readonly = "", "", false },
			"---\nname: x\ndescription: d\n---\n"},
		{"top-level type updated in place", "---\nname: x\ntype: user\n---\n", func(m *Memory) { m.Type = "project" },
			"---\nname: x\ntype: project\n---\n"},
		{"metadata type updated", "---\nname: x\ntype: user\nmetadata:\n  type: feedback\n---\n",
			func(m *Memory) { m.Type = "project" },
			"---\nname: x\ntype: user\nmetadata:\n  type: project\n---\n"},
		{"type added to metadata", "---\nname: x\n---\n", func(m *Memory) { m.Type = "reference" },
			"---\nname: x\nmetadata:\n  type: reference\n---\n"},
		{"null metadata replaced", "---\nname: x\nmetadata:\n---\n", func(m *Memory) { m.Type = "user" },
			"---\nname: x\nmetadata:\n  type: user\n---\n"},
		{"strings quoted when needed", "---\nname: x\n---\n", func(m *Memory) { m.Description = "true: 1 # not a comment" },
			"---\nname: x\ndescription: 'true: 1 # not a comment'\n---\n"},
		{"multi-line description", "---\nname: x\n---\n", func(m *Memory) { m.Description = "a\nb" },
			"---\nname: x\ndescription: |-\n  a\n  b\n---\n"},
		{"comment on a changed value kept", "---\nname: x\ndescription: d # keep\n---\n", func(m *Memory) { m.Description = "e" },
			"---\nname: x\ndescription: e # keep\n---\n"},
		{"unchanged readonly yes kept", "---\nname: x\nmetadata:\n  readonly: yes\n---\n", func(m *Memory) { m.Description = "d" },
			"---\nname: x\ndescription: d\nmetadata:\n  readonly: yes\n---\n"},
		{"anchored value replaced", "---\nname: &n x\nalso: *n\n---\n", func(m *Memory) { m.Name = "y" },
			"---\nname: y\nalso: x\n---\n"},
		{"anchored value removed", "---\ntitle: &t T\nalso: [*t]\n---\n", func(m *Memory) { m.Title = "" },
			"---\nalso: [T]\n---\n"},
		{"aliased metadata copied", "---\nbase: &b {type: user, x: 1}\nmetadata: *b\n---\n", func(m *Memory) { m.Type = "project" },
			"---\nbase: &b {type: user, x: 1}\nmetadata: {type: project, x: 1}\n---\n"},
		{"empty frontmatter", "---\n---\n", func(*Memory) {}, "---\n---\n"},
		{"project, updated, pinned added after type", "---\nname: x\nmetadata:\n  type: project\n  readonly: true\n  source: hand\n---\n",
			func(m *Memory) { m.Project, m.Updated, m.Pinned = "memoryd", "2025-03-07", true },
			"---\nname: x\nmetadata:\n  type: project\n  project: memoryd\n  updated: 2025-03-07\n  pinned: true\n  readonly: true\n  source: hand\n---\n"},
		{"project, updated, pinned into new metadata", "---\nname: x\n---\n",
			func(m *Memory) { m.Project, m.Updated, m.Pinned = "memoryd", "2025-3-7", true },
			"---\nname: x\nmetadata:\n  project: memoryd\n  updated: 2025-3-7\n  pinned: true\n---\n"},
		{"updated changed in place, source mapping kept", "---\nname: x\nmetadata:\n  source:\n    agent: cli # by hand\n    at: 2025-01-02T03:04:05Z\n  updated: 2024-01-01\n  type: user\n---\n",
			func(m *Memory) { m.Updated = "2025-03-07" },
			"---\nname: x\nmetadata:\n  source:\n    agent: cli # by hand\n    at: 2025-01-02T03:04:05Z\n  updated: 2025-03-07\n  type: user\n---\n"},
		{"updated that is not a date is quoted", "---\nname: x\n---\n", func(m *Memory) { m.Updated = "123" },
			"---\nname: x\nmetadata:\n  updated: \"123\"\n---\n"},
		{"project, updated, pinned removed", "---\nname: x\nmetadata:\n  project: a\n  updated: 2025-03-07\n  pinned: yes\n---\n",
			func(m *Memory) { m.Project, m.Updated, m.Pinned = "", "", false },
			"---\nname: x\n---\n"},
		{"unchanged pinned yes kept", "---\nname: x\nmetadata:\n  pinned: yes # keep\n  project: a\n---\n", func(m *Memory) { m.Project = "b" },
			"---\nname: x\nmetadata:\n  pinned: yes # keep\n  project: b\n---\n"},
		{"body kept byte for byte", "---\nname: x\n---\n\n  indented\n\n\n", func(*Memory) {},
			"---\nname: x\n---\n\n  indented\n\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, "x.md", tt.in)
			c := *m
			tt.change(&c)
			checkFormat(t, &c, tt.want)
		})
	}
}

func TestNewMemory(t *testing.T) {
	m := NewMemory("feedback", "prefers-tabs", "Prefers tabs over spaces", "Use tabs.\r\n")
	if m.File != "feedback-prefers-tabs.md" {
		t.Fatalf("File %q", m.File)
	}
	checkFormat(t, m, "---\nname: prefers-tabs\ndescription: Prefers tabs over spaces\nmetadata:\n  type: feedback\n---\nUse tabs.\n")
	p := mustParse(t, m.File, string(m.Format()))
	if p.Name != m.Name || p.Description != m.Description || p.Type != m.Type || p.Body != "Use tabs.\n" {
		t.Fatalf("round trip: %+v", *p)
	}
	if NewMemory("", "x", "", "").File != "x.md" {
		t.Fatal("no type: want x.md")
	}
	lit := &Memory{File: "y.md", Name: "y", Title: "Y", Readonly: true}
	checkFormat(t, lit, "---\nname: y\ntitle: Y\nmetadata:\n  readonly: true\n---\n")
	full := NewMemory("project", "freeze", "No schema changes", "b")
	full.Project, full.Updated, full.Pinned, full.Readonly = "billing", "2025-03-07", true, true
	checkFormat(t, full, "---\nname: freeze\ndescription: No schema changes\nmetadata:\n  type: project\n"+
		"  project: billing\n  updated: 2025-03-07\n  pinned: true\n  readonly: true\n---\nb\n")
}

// TestNoteOnAValueThatBecomesAList: "source: review # where" written as a
// list keeps its note on the key, not on the line of the key after it.
func TestNoteOnAValueThatBecomesAList(t *testing.T) {
	m, err := Parse("feedback-tabs.md", []byte("---\nname: tabs\nmetadata:\n  type: feedback\n  source: review # where\n  owner: x\n---\nUse tabs.\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := *m
	c.Sources = append(c.Sources, Source{Agent: "cli"})
	got := string(c.Format())
	if !strings.Contains(got, "source: # where\n    - agent: review\n    - agent: cli\n  owner: x\n") {
		t.Errorf("Format:\n%s", got)
	}
}
