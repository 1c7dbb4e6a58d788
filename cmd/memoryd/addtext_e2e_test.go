package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddTextAlone is a new user's first command, on the built binary:
// memoryd add "I use fish as my shell" writes a user fact whose body is the
// text, whose name comes from its words and whose description is the text;
// the same words again get a free name; misuse is exit 2 with the usage.
func TestAddTextAlone(t *testing.T) {
	w := newWorld(t)
	w.git(w.notes, "init", "-q")
	out, code := w.runCmd(nil, "add", "I use fish as my shell")
	if code != 0 {
		t.Fatalf("add TEXT: exit %d\n%s", code, out)
	}
	file := filepath.Join(w.mem, "user-i-use-fish-as-my-shell.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("add TEXT wrote no %s: %v\n%s", file, err, out)
	}
	for _, want := range []string{"name: i-use-fish-as-my-shell\n", "description: I use fish as my shell\n", "type: user\n", "\nI use fish as my shell\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("fact lacks %q:\n%s", want, data)
		}
	}
	if s := w.subjects()[0]; s != "memory: add user-i-use-fish-as-my-shell.md (cli)" {
		t.Errorf("commit subject %q", s)
	}

	// Other words with the same first words: the name is taken, so numbered.
	long := "I use fish as my shell and starship as its prompt, with vi keys everywhere, on every machine I own"
	if out, code := w.runCmd(nil, "add", long); code != 0 {
		t.Fatalf("add a second TEXT: exit %d\n%s", code, out)
	}
	entries, _ := filepath.Glob(filepath.Join(w.mem, "user-*.md"))
	if len(entries) != 2 {
		t.Fatalf("want two user facts, got %v", entries)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(e), "user-"), ".md")
		if len(name) > 64 {
			t.Errorf("derived name %q is longer than 64", name)
		}
	}

	for _, args := range [][]string{{"add"}, {"add", "I", "use", "fish"}} {
		stdout, stderr, code := w.runCmd2(nil, args...)
		if code != 2 || !strings.Contains(stderr, "usage: memoryd add") {
			t.Errorf("memoryd %s: exit %d, want 2 with the usage\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
