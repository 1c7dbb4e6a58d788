package gitstore

import (
	"context"
	"path/filepath"
	"testing"
)

func TestIgnored(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(root, ".gitignore"), "memory/private-*.md\nmemory/tracked-*.md\n")
	write(t, filepath.Join(dir, "tracked-a.md"), "a\n")
	cli(t, root, "add", "-f", "memory/tracked-a.md") // tracked despite the rule: committed as usual
	commitAll(t, root, "first")
	write(t, filepath.Join(dir, "private-b.md"), "b\n")
	write(t, filepath.Join(dir, "user-c.md"), "c\n")
	got, err := open(t, dir).Ignored(context.Background(), []string{"tracked-a.md", "private-b.md", "user-c.md", "private-new.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got["private-b.md"] || !got["private-new.md"] {
		t.Fatalf("Ignored = %v, want private-b.md and private-new.md", got)
	}
}
