package index

import (
	"reflect"
	"strings"
	"testing"
)

func TestSourcesRoundTrip(t *testing.T) {
	m := NewMemory("feedback", "prefers-tabs", "Prefers tabs", "Use tabs.")
	m.Sources = []Source{
		{Agent: "opencode", Session: "ses_1", Messages: "msg_a..msg_b", At: "2026-11-23T20:00:00Z", Cwd: "/home/ana/my proj: x", Host: "laptop"},
		{Agent: "mcp: claude-code", At: "2026-11-23T21:00:00Z"},
	}
	data := m.Format()
	got, err := Parse(m.File, data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(got.Sources, m.Sources) {
		t.Fatalf("sources %+v\n%s", got.Sources, data)
	}
	if string(got.Format()) != string(data) {
		t.Fatal("Format is not stable")
	}
	// Adding a source keeps the other keys, comments included.
	hand := "---\nname: a\ndescription: A # mine\nmetadata:\n  type: user\n  team: core\n---\nBody.\n"
	h, _ := Parse("user-a.md", []byte(hand))
	c := *h
	c.Sources = append(c.Sources, Source{Agent: "cli", At: "2026-11-23T21:00:00Z"})
	out := string(c.Format())
	for _, want := range []string{"description: A # mine", "team: core", "source:", "- agent: cli"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	// A plain value is an origin a person named; anything else is none.
	odd, err := Parse("user-b.md", []byte("---\nname: b\nmetadata:\n  type: user\n  source: by hand\n---\nBody.\n"))
	if err != nil || len(odd.Sources) != 1 || odd.Sources[0].Agent != "by hand" {
		t.Fatalf("%+v %v", odd, err)
	}
	odd, err = Parse("user-c.md", []byte("---\nname: c\nmetadata:\n  type: user\n  source: [1, [2]]\n---\nBody.\n"))
	if err != nil || odd.Sources != nil {
		t.Fatalf("%+v %v", odd, err)
	}
}

func TestTitleOf(t *testing.T) {
	for _, c := range [][4]string{
		{"My Title", "x", "user-x.md", "My Title"},
		{"", "prefers-tabs", "feedback-prefers-tabs.md", "Prefers tabs"},
		{"", "", "notes.md", "notes.md"},
		{"two\nlines", "x", "f.md", "two lines"},
	} {
		if got := TitleOf(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("TitleOf(%q, %q, %q) = %q, want %q", c[0], c[1], c[2], got, c[3])
		}
	}
}
