package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestChanges(t *testing.T) {
	for _, rel := range []string{"notes/memory", ""} {
		t.Run("rel="+rel, func(t *testing.T) {
			root, dir := newRepo(t, rel)
			r := open(t, dir)

			write(t, filepath.Join(dir, "keep.md"), "keep\n")
			write(t, filepath.Join(dir, "mod.md"), "before\n")
			write(t, filepath.Join(dir, "same-size.md"), "aaaa\n")
			write(t, filepath.Join(dir, "del.md"), "gone soon\n")
			write(t, filepath.Join(root, "outside", "x.md"), "x\n")
			if got, want := changes(t, r), "A del.md\nA keep.md\nA mod.md\nA same-size.md\n"; rel != "" && got != want {
				t.Fatalf("empty repository: Changes =\n%s want\n%s", got, want)
			}
			commitAll(t, root, "first")
			if got := changes(t, r); got != "" {
				t.Fatalf("after commit: Changes = %q, want none", got)
			}

			write(t, filepath.Join(dir, "mod.md"), "after, longer\n")
			write(t, filepath.Join(dir, "same-size.md"), "bbbb\n")
			remove(t, filepath.Join(dir, "del.md"))
			write(t, filepath.Join(dir, "new.md"), "new\n")
			write(t, filepath.Join(dir, "sub", "deep.md"), "deep\n")
			write(t, filepath.Join(dir, ".new.md.swp"), "swap")    // untracked by the filter
			write(t, filepath.Join(dir, "4913"), "")               // untracked by the filter
			write(t, filepath.Join(dir, ".hidden", "h.md"), "h\n") // hidden directory
			write(t, filepath.Join(dir, "private.md"), "secret\n") // ignored by git
			write(t, filepath.Join(root, ".gitignore"), "private.md\n")
			write(t, filepath.Join(root, "outside", "x.md"), "changed outside\n")

			want := "D del.md\nM mod.md\nA new.md\nM same-size.md\nA sub/deep.md\n"
			if rel == "" {
				want = "D del.md\nM mod.md\nA new.md\nM outside/x.md\nM same-size.md\nA sub/deep.md\n"
			}
			if got := changes(t, r); got != want {
				t.Fatalf("Changes =\n%s want\n%s", got, want)
			}
		})
	}
}

func TestChangesSymlink(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "target.md"), "t\n")
	if err := os.Symlink("target.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	commitAll(t, root, "first")
	r := open(t, dir)
	if got := changes(t, r); got != "" {
		t.Fatalf("Changes with a committed symlink = %q", got)
	}
	remove(t, filepath.Join(dir, "link.md"))
	if err := os.Symlink("other.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if got := changes(t, r); got != "M link.md\n" {
		t.Fatalf("Changes after retargeting = %q", got)
	}
}

// Files a pull brings in equal HEAD: nothing to commit, although every
// one of them was just written.
func TestChangesAfterPull(t *testing.T) {
	origin, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	write(t, filepath.Join(dir, "m.md"), "m\n")
	commitAll(t, origin, "first")

	clone := filepath.Join(t.TempDir(), "clone")
	cli(t, origin, "clone", "-q", origin, clone)
	t.Cleanup(func() { fsck(t, clone) })
	write(t, filepath.Join(clone, "memory", "b.md"), "b\n")
	write(t, filepath.Join(clone, "memory", "m.md"), "m, edited elsewhere\n")
	remove(t, filepath.Join(clone, "memory", "a.md"))
	write(t, filepath.Join(clone, "memory", "c.md"), "c\n")
	commitAll(t, clone, "from the clone")

	r := open(t, dir)
	if got := changes(t, r); got != "" {
		t.Fatalf("before pull: Changes = %q", got)
	}
	cli(t, origin, "pull", "-q", "--no-rebase", clone, "main")
	if got := changes(t, r); got != "" {
		t.Fatalf("after pull: Changes = %q, want none", got)
	}
	if _, err := r.Commit(context.Background(), "m", []string{"a.md", "b.md", "c.md", "m.md"}); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("Commit after pull: %v, want ErrNothingToCommit", err)
	}
}
