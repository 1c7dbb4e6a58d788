package index

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		withUnknownKeys,
		"---\nname: x\ndescription: d\nmetadata:\n  type: user\n  readonly: true\n---\nbody\n",
		"\uFEFF---\r\nname: x\r\ntype: feedback\r\n---\r\nb",
		"---\n---\n",
		"---\n# c\nname: &a x\ntitle: *a\n---\n",
		"---\nname: x\ndescription: |\n  two\n  lines\n---\n",
		"---\nname: x\n---\n<<<<<<< a\n=======\n>>>>>>> b\n",
		"---\nname: [x\n---\n",
		"no frontmatter",
		"---\nk: {a: [1, 2], b: \"q\"}\nmetadata: {type: project}\n---\n",
		// Found by fuzzing.
		"---\n---\n<<<<<<<\r",
		"---\n\r\r0000\n---",
		"---\n0: 0000000\nmetadata: {}\n---",
		"---\nname: &a \n0: *a\n---",
		"---\n0000: 0\n0000000000: |\n\n 0\n---",
		"---\n---\n\r",
		"---\n0:\n  e: \n  e:\n---",
		"---\nname: x\nmetadata:\n  type: project\n  project: memoryd\n  updated: 2025-03-07\n  pinned: true\n  source:\n    agent: cli\n---\nb\n",
		"---\nmetadata:\n  project: [a]\n  updated: {d: 1}\n  pinned: [true]\n---\n",
		"---\nmetadata:\n  project: 'Not A Slug'\n  updated: \"2025-3-7\"\n  pinned: yes\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("f.md", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "f.md" || pe.Line < 0 || pe.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		checkRoundTrip(t, m)
		c := *m
		c.Name, c.Description, c.Type, c.Readonly = "renamed", "new\ndescription", "project", !m.Readonly
		c.Project, c.Updated, c.Pinned = changed(m.Project, "memoryd"), changed(m.Updated, "2025-03-07"), !m.Pinned
		checkChangedFormat(t, m, &c)
		d := *m
		d.Project, d.Updated = changed(m.Project, "true"), changed(m.Updated, "2025-3-7 a: b")
		checkChangedFormat(t, m, &d)
		_ = Build(Snapshot{Memories: []*Memory{m, &c}})
	})
}

// checkRoundTrip asserts that Format of a parsed memory parses back to the
// same fields and formats to the same bytes.
func checkRoundTrip(t *testing.T, m *Memory) {
	t.Helper()
	out := m.Format()
	again, err := Parse("f.md", out)
	if err != nil {
		t.Fatalf("Format output does not parse: %v\n%s", err, out)
	}
	if again.Name != m.Name || again.Title != m.Title || again.Description != m.Description ||
		again.Type != m.Type || again.Readonly != m.Readonly || again.Project != m.Project ||
		again.Updated != m.Updated || again.Pinned != m.Pinned ||
		trimEOL(again.Body) != trimEOL(m.Body) {
		t.Fatalf("fields changed by Format:\n%+v\n%+v\n%s", *m, *again, out)
	}
	if twice := again.Format(); !bytes.Equal(twice, out) {
		t.Fatalf("Format not stable:\n%q\n%q", out, twice)
	}
}

// checkChangedFormat asserts that c, a changed copy of m, formats to a file
// with c's fields and m's unknown keys.
func checkChangedFormat(t *testing.T, m, c *Memory) {
	t.Helper()
	got, err := Parse("f.md", c.Format())
	if err != nil {
		t.Fatalf("changed Format does not parse: %v\n%s", err, c.Format())
	}
	if twice := got.Format(); !bytes.Equal(twice, c.Format()) {
		t.Fatalf("changed Format not stable:\n%q\n%q", c.Format(), twice)
	}
	if got.Name != c.Name || got.Description != c.Description || got.Type != c.Type || got.Readonly != c.Readonly ||
		got.Project != c.Project || got.Updated != c.Updated || got.Pinned != c.Pinned {
		t.Fatalf("changed fields lost:\n%+v\n%s", *got, c.Format())
	}
	// yaml.v3 cannot re-encode every document faithfully (block scalars
	// that start with a blank line, nulls in flow mappings); check that
	// Format keeps unknown keys wherever yaml.v3 itself can.
	var plain bytes.Buffer
	if encodeYAML(&plain, m.document()) == nil && sameUnknown(t, m.front, plain.String()) &&
		!sameUnknown(t, m.front, frontOf(t, c.Format())) {
		t.Fatalf("unknown keys changed:\n%s\n----\n%s", m.front, c.Format())
	}
}

func frontOf(t *testing.T, data []byte) string {
	m, err := Parse("f.md", data)
	if err != nil {
		t.Fatal(err)
	}
	return m.front
}

// sameUnknown reports whether two frontmatters hold the same values apart
// from the known keys, ignoring style, comments and positions.
func sameUnknown(t *testing.T, a, b string) bool {
	strip := func(s string) *yaml.Node {
		doc, err := decodeFrontmatter("f.md", s)
		if err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
		root := doc.Content[0]
		e := &editor{root: root}
		for _, k := range []string{"name", "title", "description", "type"} {
			e.removeKey(root, k)
		}
		for _, k := range []string{"type", "readonly", "project", "updated", "pinned"} {
			e.removeMeta(k)
		}
		if meta := e.metadata(false); meta == nil || len(meta.Content) == 0 {
			e.removeKey(root, "metadata")
		}
		return root
	}
	budget := 10000
	return sameNode(strip(a), strip(b), &budget)
}

// sameNode compares two trees through aliases, giving up (true) after
// budget nodes so that alias bombs stay cheap.
func sameNode(a, b *yaml.Node, budget *int) bool {
	if *budget--; *budget < 0 {
		return true
	}
	a, b = resolve(a), resolve(b)
	if a.Kind != b.Kind || a.Tag != b.Tag || len(a.Content) != len(b.Content) ||
		a.Kind == yaml.ScalarNode && a.Tag != "!!null" && a.Value != b.Value {
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i], budget) {
			return false
		}
	}
	return true
}

// changed returns a value other than old: v, or v with a suffix when old
// already is v.
func changed(old, v string) string {
	if old == v {
		return v + "-2"
	}
	return v
}

func trimEOL(s string) string { return strings.TrimRight(strings.TrimSuffix(s, "\n"), "\r") }

// FuzzFastPath checks that wherever the fast frontmatter reader answers, it
// answers what yaml.v3 does.
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{
		"name: prefers-tabs\ndescription: Prefers tabs over spaces, always\nmetadata:\n  type: feedback\n  readonly: true\n",
		"name: x\ntype: User\ntitle: A title: with colon\n",
		"# comment\nname: x # not a comment?\n\nmetadata:\n\n    type: project\n    source: hand\n",
		"name: ~\ndescription: null\nmetadata:\n",
		"name: x\n  continued\n",
		"description:\n  a: b\n",
		"name: 'quoted'\n",
		"tags: [a, b]\n",
		"a: b:c\nd: e#f\ng: h :i\nj: 1.5\nk: 0x10\nl: .inf\nm: <<\nn: =\n",
		"name: x\nname: y\n",
		"metadata:\n  type: a\n  type: b\n",
		"x:\n  y:\n    z: 1\n",
		"name: café ü 中文\n",
		"name: a\u0085b\n",
		"metadata:\n  project: memoryd\n  updated: 2025-03-07\n  pinned: yes\n",
		"metadata:\n  project:\n  updated: ~\n  pinned: 1\n",
		"metadata:\n  project: a b\n  updated: 2025-03-07T10:00:00Z\n",
		"metadata:\n  type: user\n  origin:\n    agent: opencode\n    at: 2025-03-07T10:00:00Z\n    cwd: /home/a/src\n  pinned: true\n",
		"metadata:\n  origin:\n    first:\n      id: msg_1\n    last:\n      id: msg_2\n  type: feedback\nname: x\n",
		"metadata:\n  origin:\n    agent: a\n    agent: b\n",
		"metadata:\n  origin:\n    a: 1\n   b: 2\n",
		"metadata:\n  type: user\n  source:\n    agent: opencode\n  pinned: true\n",
		"metadata:\n  source: by hand\n",
		"metadata:\n  source:\n    - agent: cli\n      at: 2025-03-07T10:00:00Z\n",
		"metadata:\n  type:\n    a: 1\n",
		"extra:\n  type: user\n  metadata:\n    type: project\n",
		"a:\n  b:\nc:\n    d: 1\n",
		"a:\n  b:\n c: 1\n",
		"a:\n  b:\n    c:\n      d:\n        e: 1\n",
		"metadata:\n    # note\n  type: user\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fast, ok := fastFields(text)
		if !ok {
			return
		}
		slow, err := slowFields("f.md", text)
		if err != nil {
			t.Fatalf("fast path accepted what yaml.v3 rejects (%v):\n%s", err, text)
		}
		if fast != slow {
			t.Fatalf("fast %+v\nslow %+v\n%s", fast, slow, text)
		}
	})
}

// TestFastPathCoversCommonFiles guards the speed of Scan: the frontmatter
// agents and memoryd itself write must not need yaml.v3.
func TestFastPathCoversCommonFiles(t *testing.T) {
	common := []string{
		string(NewMemory("feedback", "prefers-tabs", "Prefers tabs over spaces, in every language (Go too)", "b").Format()),
		"---\nname: email\ndescription: Work email is a@b.example; personal is c@d.example\ntype: user\n---\n",
		// metadata.source in any form goes through yaml.v3 for now (see fastFields).
		"---\nname: x\ntitle: Deploys — how and when\ndescription: Deploy on Fridays? Never.\nmetadata:\n  type: project\n  readonly: true\n  team: core\n---\n",
		"---\nname: x\ndescription: d\nmetadata:\n  type: project\n  project: memoryd\n  updated: 2025-03-07\n  pinned: true\n---\n",
		"---\nname: x\ndescription: d\nmetadata:\n  type: project\n  project: memoryd\n  updated: 2025-03-07\n  team:\n    name: core\n" +
			"    lead: ana\n    since: 2025-03-07T10:00:00Z\n    home: /home/ana/src/memoryd\n---\n",
	}
	for _, c := range common {
		m := mustParse(t, "x.md", c)
		if _, ok := fastFields(m.front); !ok {
			t.Errorf("fast path refused:\n%s", m.front)
		}
	}
}
