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
		var meta strings.Builder
		switch r.IntN(6) {
		case 0, 1:
			meta.WriteString("  project: " + []string{"memoryd", "billing", "my-app-2", "Bad Name"}[r.IntN(4)] + "\n")
		case 2:
			meta.WriteString("  project: ~\n")
		}
		if r.IntN(3) > 0 {
			meta.WriteString(fmt.Sprintf("  updated: 2025-%02d-%02d\n", 1+r.IntN(12), 1+r.IntN(28)))
		}
		if r.IntN(30) == 0 {
			meta.WriteString("  pinned: true\n")
		}
		if r.IntN(3) == 0 {
			fm.WriteString("type: " + typ + "\n")
			if meta.Len() > 0 {
				fm.WriteString("metadata:\n" + meta.String())
			}
		} else {
			fm.WriteString("metadata:\n  type: " + typ + "\n  extra: 1\n" + meta.String())
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
// from seed, and returns every index file (name → bytes) a fresh Store with
// budget b writes for them.
func materialise(t *testing.T, files map[string]string, seed uint64, b Budget) map[string][]byte {
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
	s.SetBudget(b)
	if err := s.Scan(); err != nil {
		t.Fatal(err)
	}
	w, err := s.WriteIndex()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if IsIndex(e.Name()) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = data
		}
	}
	if len(w.Files) != len(out) {
		t.Fatalf("WriteIndex reports %d files, the folder holds %d", len(w.Files), len(out))
	}
	return out
}

func TestIndexIsDeterministic(t *testing.T) {
	files := genStore(42, 600)
	one := materialise(t, files, 1, Budget{})
	if os.Getenv("MEMORYD_SHOW_INDEX") != "" {
		for name, data := range one {
			t.Logf("%s:\n%s", name, data)
		}
	}
	two := materialise(t, files, 2, Budget{})
	if len(one) != 4 || len(one) != len(two) {
		t.Fatalf("index files %v and %v", keys(one), keys(two))
	}
	for name, data := range one {
		if !bytes.Equal(data, two[name]) {
			t.Fatalf("same files, different %s:\n%s\n----\n%s", name, data, two[name])
		}
		if bytes.ContainsRune(data, '\r') {
			t.Fatalf("CR in %s", name)
		}
		if over, lines, size := DefaultBudget().Over(data); over {
			t.Fatalf("%s is %d lines, %d bytes", name, lines, size)
		}
	}
	if !bytes.Contains(one[IndexFile], []byte("more memories are not listed here")) ||
		!bytes.Contains(one[IndexFile], []byte("not a valid slug")) {
		t.Fatalf("MEMORY.md should leave facts out and name invalid projects:\n%s", one[IndexFile])
	}

	// With room for everything, each readable file is listed exactly once.
	huge := Budget{Lines: 1 << 30, Bytes: 1 << 30}
	all := materialise(t, files, 3, huge)
	entries := 0
	for _, data := range all {
		entries += bytes.Count(data, []byte("\n- [")) - bytes.Count(data, []byte("](MEMORY."))
	}
	unread := 0
	for _, c := range files {
		if !strings.HasPrefix(c, "---\nname: fact") {
			unread++
		}
	}
	if entries+unread != len(files) || unread == 0 || !bytes.Contains(all[IndexFile], []byte("could not be read")) {
		t.Fatalf("%d entries + %d unreadable != %d files:\n%s", entries, unread, len(files), all[IndexFile])
	}

	// The builders on their own do not depend on the order of their input.
	var snap Snapshot
	for rel, c := range files {
		if m, err := Parse(rel, []byte(c)); err == nil {
			snap.Memories = append(snap.Memories, m)
		} else {
			snap.Unreadable = append(snap.Unreadable, Unreadable{File: rel, Err: err})
		}
	}
	check := func(what string) {
		t.Helper()
		built := BuildAll(snap, Budget{})
		for name, data := range one {
			if !bytes.Equal(built[name], data) {
				t.Fatalf("%s: BuildAll's %s differs:\n%s", what, name, built[name])
			}
		}
		if !bytes.Equal(Build(snap), one[IndexFile]) {
			t.Fatalf("%s: Build differs", what)
		}
	}
	check("map-ordered snapshot")

	// Lines rendered at parse time equal lines rendered by Build.
	for i, m := range snap.Memories {
		c := *m
		c.line = nil
		snap.Memories[i] = &c
	}
	check("without cached lines")
}
