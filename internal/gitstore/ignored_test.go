package gitstore

import (
	"context"
	"path/filepath"
	"strings"
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

// TestIgnoredNew: the new files the ignore rules exclude come with the
// rule that does, a file a negated pattern lets back in is not one, and
// the fix names the memory folder.
func TestIgnoredNew(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(root, ".gitignore"), "*.md\n!memory/user-keep.md\n")
	commitAll(t, root, "first")
	write(t, filepath.Join(dir, "user-a.md"), "a\n")
	write(t, filepath.Join(dir, "user-keep.md"), "k\n")
	got, err := open(t, dir).IgnoredNew(func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "user-a.md" || got[0].Rule != ".gitignore:1: *.md" {
		t.Fatalf("IgnoredNew = %+v, want user-a.md by .gitignore:1: *.md", got)
	}
	if want := `"!/memory/**"`; !strings.Contains(got[0].Fix, want) {
		t.Errorf("fix %q does not name %s", got[0].Fix, want)
	}
}
