package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func mustParse(t *testing.T, rel, text string) *Memory {
	t.Helper()
	m, err := Parse(rel, []byte(text))
	if err != nil {
		t.Fatalf("Parse(%s): %v", rel, err)
	}
	return m
}

func TestParse(t *testing.T) {
	m := mustParse(t, "feedback-prefers-tabs.md", "---\n"+
		"name: prefers-tabs\n"+
		"title: Tabs, always\n"+
		"description: Prefers tabs over spaces\n"+
		"metadata:\n  type: feedback\n  readonly: true\n"+
		"---\nUse tabs.\nWhy: said so.\n")
	want := Memory{File: "feedback-prefers-tabs.md", Name: "prefers-tabs", Title: "Tabs, always",
		Description: "Prefers tabs over spaces", Type: "feedback", Readonly: true, Body: "Use tabs.\nWhy: said so.\n"}
	if m.File != want.File || m.Name != want.Name || m.Title != want.Title || m.Description != want.Description ||
		m.Type != want.Type || m.Readonly != want.Readonly || m.Body != want.Body {
		t.Fatalf("got %+v\nwant %+v", *m, want)
	}
	if len(m.Hash) != 64 {
		t.Fatalf("hash %q", m.Hash)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text string
		line       int
		msg        string
	}{
		{"empty", "", 1, "no frontmatter"},
		{"no frontmatter", "# Title\nname: x\n", 1, "no frontmatter"},
		{"frontmatter not first", "\n---\nname: x\n---\n", 1, "no frontmatter"},
		{"unterminated", "---\nname: x\ndescription: y\n", 1, "never closed"},
		{"bad yaml", "---\nname: x\ndescription: a: b\n---\n", 3, "invalid YAML"},
		{"bad yaml later", "---\nname: x\n\n\ndescription: [a\n---\nbody\n", 5, "invalid YAML"},
		{"bad yaml first line", "---\n\tname: x\n---\n", 2, "invalid YAML"},
		{"control character", "---\nname: x\ndescription: a\x01b\n---\n", 3, "control characters"},
		{"not a mapping", "---\n- a\n- b\n---\n", 2, "not a mapping"},
		{"scalar frontmatter", "---\nhello\n---\n", 2, "not a mapping"},
		{"metadata not a mapping", "---\nname: x\nmetadata: feedback\n---\n", 3, "metadata is not a mapping"},
		{"description a list", "---\nname: x\ndescription:\n  - a\n---\n", 4, "description is not a single value"},
		{"type a mapping", "---\nmetadata:\n  type: {a: b}\n---\n", 3, "metadata.type is not a single value"},
		{"duplicate key", "---\nname: x\ndescription: a\nname: y\n---\n", 4, `key "name" is defined twice (first on line 2)`},
		{"duplicate metadata key", "---\nmetadata:\n  type: user\n  type: project\n---\n", 4, "defined twice"},
		{"conflict markers", "---\nname: x\n---\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> origin/main\n", 4, "conflict marker"},
		{"conflict in frontmatter", "---\nname: x\n<<<<<<< ours\ndescription: a\n=======\ndescription: b\n>>>>>>> theirs\n---\n", 3, "conflict marker"},
		{"conflict marker separator first", "---\nname: x\n---\n=======\ntheirs\n>>>>>>> theirs\n", 4, "conflict marker"},
		{"bare conflict start", "---\nname: x\n---\na\n<<<<<<<\n", 5, "conflict marker"},
		{"diff3 base marker", "---\nname: x\n---\na\n||||||| base\n", 5, "conflict marker"},
		{"not utf-8", "---\nname: x\n---\nok\nbad \xff here\n", 5, "not valid UTF-8"},
		{"not utf-8 in frontmatter", "---\nname: \xc3\x28\n---\n", 2, "not valid UTF-8"},
		{"too big", "---\nname: x\n---\n" + strings.Repeat("a", MaxFileSize), 0, "more than the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse("x.md", []byte(tt.text))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %+v, %v; want a *ParseError", m, err)
			}
			if pe.File != "x.md" || pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
				t.Fatalf("got %q (line %d); want line %d with %q", pe.Error(), pe.Line, tt.line, tt.msg)
			}
		})
	}
}

func TestParseErrorString(t *testing.T) {
	if got := (&ParseError{"a.md", 3, "bad"}).Error(); got != "a.md:3: bad" {
		t.Fatal(got)
	}
	if got := (&ParseError{"a.md", 0, "too big"}).Error(); got != "a.md: too big" {
		t.Fatal(got)
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name, rel, text string
		want            Memory
	}{
		{"setext heading is not a conflict", "x.md", "---\nname: x\n---\nTitle\n=======\n",
			Memory{Name: "x", Body: "Title\n=======\n"}},
		{"marker needs a space", "x.md", "---\nname: x\n---\n<<<<<<<< not a marker\n",
			Memory{Name: "x", Body: "<<<<<<<< not a marker\n"}},
		{"bom and crlf", "x.md", "\uFEFF---\r\nname: x\r\ndescription: d\r\n---\r\nline 1\r\nline 2\r\n",
			Memory{Name: "x", Description: "d", Body: "line 1\nline 2\n"}},
		{"top-level type", "x.md", "---\nname: x\ntype: user\n---\n", Memory{Name: "x", Type: "user"}},
		{"metadata type wins", "x.md", "---\nname: x\ntype: user\nmetadata:\n  type: project\n---\n",
			Memory{Name: "x", Type: "project"}},
		{"type normalised", "x.md", "---\nname: x\nmetadata:\n  type: ' Feedback '\n---\n",
			Memory{Name: "x", Type: "feedback"}},
		{"readonly yes", "x.md", "---\nname: x\nmetadata:\n  readonly: yes\n---\n", Memory{Name: "x", Readonly: true}},
		{"readonly false", "x.md", "---\nname: x\nmetadata:\n  readonly: false\n---\n", Memory{Name: "x"}},
		{"top-level readonly is unknown", "x.md", "---\nname: x\nreadonly: true\n---\n", Memory{Name: "x"}},
		{"name from file", "sub/feedback-tabs.md", "---\nmetadata:\n  type: feedback\n---\n",
			Memory{Name: "tabs", Type: "feedback"}},
		{"name from file, no type", "notes.md", "---\ndescription: d\n---\nbody", Memory{Name: "notes", Description: "d", Body: "body"}},
		{"null values", "x.md", "---\nname:\ndescription: ~\nmetadata:\n---\n", Memory{Name: "x"}},
		{"empty frontmatter", "x.md", "---\n---\n", Memory{Name: "x"}},
		{"fences with trailing blanks", "x.md", "--- \nname: x\n---\t\nb\n", Memory{Name: "x", Body: "b\n"}},
		{"no newline after closing fence", "x.md", "---\nname: x\n---", Memory{Name: "x"}},
		{"numbers are strings", "x.md", "---\nname: 42\ndescription: 1.5\n---\n", Memory{Name: "42", Description: "1.5"}},
		{"block description", "x.md", "---\nname: x\ndescription: |\n  two\n  lines\n---\n", Memory{Name: "x", Description: "two\nlines\n"}},
		{"alias", "x.md", "---\nname: &n x\ntitle: *n\n---\n", Memory{Name: "x", Title: "x"}},
		{"body with fence", "x.md", "---\nname: x\n---\na\n---\nb\n", Memory{Name: "x", Body: "a\n---\nb\n"}},
		{"project, updated, pinned", "x.md", "---\nname: x\nmetadata:\n  project: memoryd\n  updated: 2025-03-07\n  pinned: yes\n  source:\n    agent: cli\n---\n",
			Memory{Name: "x", Project: "memoryd", Updated: "2025-03-07", Pinned: true}},
		{"project, updated kept as written", "x.md", "---\nname: x\nmetadata:\n  project: My Project\n  updated: '2025-3-7'\n  pinned: false\n---\n",
			Memory{Name: "x", Project: "My Project", Updated: "2025-3-7"}},
		{"project, updated, pinned not single values", "x.md", "---\nname: x\nmetadata:\n  project: [a]\n  updated: {y: 1}\n  pinned: [true]\n---\n",
			Memory{Name: "x"}},
		{"top-level project is unknown", "x.md", "---\nname: x\nproject: a\npinned: true\n---\n", Memory{Name: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, tt.rel, tt.text)
			w := tt.want
			if m.File != tt.rel || m.Name != w.Name || m.Title != w.Title || m.Description != w.Description ||
				m.Type != w.Type || m.Readonly != w.Readonly || m.Body != w.Body ||
				m.Project != w.Project || m.Updated != w.Updated || m.Pinned != w.Pinned {
				t.Fatalf("got %+v\nwant %+v", *m, w)
			}
		})
	}
}

func TestParseHashIsOfRawBytes(t *testing.T) {
	raw := "\uFEFF---\r\nname: x\r\n---\r\nb\r\n"
	m := mustParse(t, "x.md", raw)
	sum := sha256.Sum256([]byte(raw))
	if m.Hash != hex.EncodeToString(sum[:]) {
		t.Fatalf("hash %s", m.Hash)
	}
}

func TestScopeAndUpdatedDate(t *testing.T) {
	for _, tt := range []struct{ project, scope string }{
		{"", ""}, {"memoryd", "memoryd"}, {"my-project", "my-project"},
		{"My Project", ""}, {"a--b", ""}, {strings.Repeat("a", 65), ""},
	} {
		if got := (&Memory{Project: tt.project}).Scope(); got != tt.scope {
			t.Errorf("Scope of project %q = %q, want %q", tt.project, got, tt.scope)
		}
	}
	for in, want := range map[string]string{
		"2025-03-07": "2025-03-07", "2025-3-7": "2025-03-07", "2025-03-07T10:00:00Z": "2025-03-07",
		"2025-03-07 10:00": "2025-03-07", "": "", "yesterday": "", "2025-13-01": "", "2025-03-32": "",
		"2025-03": "", "25-03-07": "", "2025-03-07x": "", "20250-03-07": "", "2025-003-07": "",
	} {
		if got := (&Memory{Updated: in}).UpdatedDate(); got != want {
			t.Errorf("UpdatedDate(%q) = %q, want %q", in, got, want)
		}
	}
}
