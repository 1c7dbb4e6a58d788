package index

import (
	"reflect"
	"strings"
	"testing"
)

// TestCitesRoundTrip: metadata.cites is read from a list (or one string)
// and written back as a block list after the other metadata, keeping what
// memoryd does not know; an unchanged file is written as read.
func TestCitesRoundTrip(t *testing.T) {
	blob := strings.Repeat("ab", 20)
	m := NewMemory("project", "entry", "Where the app starts", "In main.")
	m.Project = "app"
	m.Cites = []Cite{{Path: "src/app.go", Blob: blob, Symbol: "main"}, {Path: "docs/a b.md", Blob: blob}}
	data := m.Format()
	if !strings.Contains(string(data), "  cites:\n    - src/app.go@"+blob+"#main\n    - docs/a b.md@"+blob+"\n") {
		t.Fatalf("written:\n%s", data)
	}
	back, err := Parse(m.File, data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Cites, m.Cites) {
		t.Fatalf("read back %+v, want %+v", back.Cites, m.Cites)
	}
	if string(back.Format()) != string(data) {
		t.Fatalf("not stable:\n%s", back.Format())
	}

	hand := "---\nname: x\nmetadata:\n  type: project\n  cites: src/a.go  # by hand\n  mine: kept\n---\nbody\n"
	h, err := Parse("project-x.md", []byte(hand))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Cites) != 1 || h.Cites[0] != (Cite{Path: "src/a.go"}) {
		t.Fatalf("one string: %+v", h.Cites)
	}
	c := *h
	c.Cites = []Cite{{Path: "src/a.go", Blob: blob}}
	out := string(c.Format())
	if !strings.Contains(out, "mine: kept") || !strings.Contains(out, "src/a.go@"+blob) {
		t.Fatalf("refreshed:\n%s", out)
	}
	for _, odd := range []string{"  cites: {a: b}\n", "  cites:\n    - [a, b]\n", "  cites: ~\n"} {
		h, err := Parse("project-x.md", []byte("---\nname: x\nmetadata:\n  type: project\n"+odd+"---\nbody\n"))
		if err != nil || len(h.Cites) != 0 {
			t.Errorf("%q: %v, %+v", odd, err, h.Cites)
		}
	}
}

func TestParseCite(t *testing.T) {
	blob := strings.Repeat("0f", 20)
	for in, want := range map[string]Cite{
		"src/app.go":                   {Path: "src/app.go"},
		"src/app.go@" + blob:           {Path: "src/app.go", Blob: blob},
		"src/app.go@" + blob + "#Run":  {Path: "src/app.go", Blob: blob, Symbol: "Run"},
		"src/app.go#Run":               {Path: "src/app.go", Symbol: "Run"},
		"node_modules/@types/x.d.ts":   {Path: "node_modules/@types/x.d.ts"},
		"a@" + blob[:10]:               {Path: "a@" + blob[:10]},
		"@types/x.ts@" + blob + "#T.m": {Path: "@types/x.ts", Blob: blob, Symbol: "T.m"},
	} {
		if got := ParseCite(in); got != want {
			t.Errorf("ParseCite(%q) = %+v, want %+v", in, got, want)
		}
		if got := ParseCite(in); ParseCite(got.String()) != got {
			t.Errorf("%q does not survive String", in)
		}
	}
}
