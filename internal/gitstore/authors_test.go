package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestAuthorsFirstAndLast(t *testing.T) {
	root := t.TempDir()
	git := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=" + name, "-c", "user.email=x@example.com"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("x", "init", "-q", "-b", "main")
	dir := filepath.Join(root, ".memory")
	write(".memory/project-a.md", "a\n")
	write("main.go", "package main\n")
	git("Ann", "add", "-A")
	git("Ann", "commit", "-q", "-m", "add a")
	write(".memory/project-a.md", "a2\n")
	write(".memory/project-b.md", "b\n")
	git("Bob", "add", "-A")
	git("Bob", "commit", "-q", "-m", "change a, add b")
	write("main.go", "package main // x\n")
	git("Cy", "commit", "-q", "-am", "code only")

	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Authors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Authors = %v, want project-a.md and project-b.md only", got)
	}
	a := got["project-a.md"]
	if a.First.Author != "Ann" || a.Last.Author != "Bob" || a.First.Hash == a.Last.Hash || a.First.When.IsZero() {
		t.Errorf("project-a.md = %+v, want added by Ann, last changed by Bob", a)
	}
	if b := got["project-b.md"]; b.First.Author != "Bob" || b.First.Hash != b.Last.Hash {
		t.Errorf("project-b.md = %+v, want added and last changed by Bob in one commit", b)
	}
}
