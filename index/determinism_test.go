package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// genStore returns n memory files (path → content) made from seed: every
// type and none, titles with markdown in them, multi-line and unicode
// descriptions, subdirectories, and a few unreadable files.
func genStore(seed uint64, n int) map[string]string {
	r := rand.New(rand.NewPCG(seed, 0))
	types := append(slices.Clone(Types), "", "misc", "Feedback")
	words := []string{"tabs", "go", "email", "deploy", "café", "naïve", "x", "[link]", "(paren)", "a: b", "#tag", "ü"}
	out := make(map[string]string, n)
	for len(out) < n {
		i := len(out)
		typ := types[r.IntN(len(types))]
		name := fmt.Sprintf("fact-%d-%s", i, []string{"a", "b", "c"}[r.IntN(3)])
		rel := name + ".md"
		if typ != "" {
			rel = strings.ToLower(typ) + "-" + rel
		}
		if r.IntN(5) == 0 {
			rel = []string{"sub", "sub dir", "a/b"}[r.IntN(3)] + "/" + rel
		}
		var fm strings.Builder
		fm.WriteString("---\nname: " + name + "\n")
		if r.IntN(4) == 0 {
			fm.WriteString(fmt.Sprintf("title: %q\n", words[r.IntN(len(words))]+" title"))
		}
		desc := words[r.IntN(len(words))] + " and " + words[r.IntN(len(words))]
		if r.IntN(6) == 0 {
			desc += "\nsecond line"
		}
		fm.WriteString(fmt.Sprintf("description: %q\n", desc))
		if r.IntN(3) == 0 {
			fm.WriteString("type: " + typ + "\n")
		} else {
			fm.WriteString("metadata:\n  type: " + typ + "\n  extra: 1\n")
		}
		fm.WriteString("---\nbody " + name + "\n")
		switch r.IntN(40) {
		case 0:
			out[rel] = "no frontmatter\n"
		case 1:
			out[rel] = "---\nname: [unclosed\n---\n"
		default:
			out[rel] = fm.String()
		}
	}
	return out
}

// materialise writes files in an order and with modification times taken
// from seed, and returns the MEMORY.md a fresh Store writes for them.
func materialise(t *testing.T, files map[string]string, seed uint64) []byte {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(seed, 1))
	names := make([]string, 0, len(files))
	for rel := range files {
		names = append(names, rel)
	}
	slices.Sort(names)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, rel := range names {
		write(t, dir, rel, files[rel])
		mt := base.Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(rel)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	s := NewStore(dir)
	if err := s.Scan(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteIndex(); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestIndexIsDeterministic(t *testing.T) {
	files := genStore(42, 200)
	one := materialise(t, files, 1)
	if os.Getenv("MEMORYD_SHOW_INDEX") != "" {
		t.Logf("%s", one)
	}
	two := materialise(t, files, 2)
	if !bytes.Equal(one, two) {
		t.Fatalf("same files, different MEMORY.md:\n%s\n----\n%s", one, two)
	}
	entries := bytes.Count(one, []byte("\n- ["))
	unread := 0
	for _, c := range files {
		if !strings.HasPrefix(c, "---\nname: fact") {
			unread++
		}
	}
	if entries+unread != len(files) || unread == 0 || !bytes.Contains(one, []byte("could not be read")) {
		t.Fatalf("%d entries + %d unreadable != %d files:\n%s", entries, unread, len(files), one)
	}
	if bytes.ContainsRune(one, '\r') {
		t.Fatal("CR in MEMORY.md")
	}

	// Build on its own does not depend on the order of its input.
	var snap Snapshot
	for rel, c := range files {
		if m, err := Parse(rel, []byte(c)); err == nil {
			snap.Memories = append(snap.Memories, m)
		} else {
			snap.Unreadable = append(snap.Unreadable, Unreadable{File: rel, Err: err})
		}
	}
	if got := Build(snap); !bytes.Equal(got, one) {
		t.Fatalf("Build of a map-ordered snapshot differs:\n%s", got)
	}

	// Lines rendered at parse time equal lines rendered by Build.
	for i, m := range snap.Memories {
		c := *m
		c.line = nil
		snap.Memories[i] = &c
	}
	if got := Build(snap); !bytes.Equal(got, one) {
		t.Fatalf("Build without cached lines differs:\n%s", got)
	}
}
