package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRestore(t *testing.T) {
	for _, rel := range []string{"memory", ""} {
		t.Run("rel="+rel, func(t *testing.T) {
			root, dir := newRepo(t, rel)
			ctx := context.Background()
			write(t, filepath.Join(dir, "a.md"), "a\n")
			write(t, filepath.Join(dir, "b.md"), "b\n")
			checkpoint := commitAll(t, root, "checkpoint")

			remove(t, filepath.Join(dir, "a.md"))
			write(t, filepath.Join(dir, "b.md"), "b rewritten\n")
			write(t, filepath.Join(dir, "sub", "c.md"), "c added since\n")
			after := commitAll(t, root, "compaction")
			write(t, filepath.Join(dir, ".draft.swp"), "untracked stays")
			if rel != "" {
				write(t, filepath.Join(root, "notes.md"), "user's staged\n")
				cli(t, root, "add", "notes.md")
			}

			r := open(t, dir)
			hash, err := r.Restore(ctx, checkpoint[:10], "")
			if err != nil {
				t.Fatal(err)
			}
			if parent := cli(t, root, "rev-parse", hash+"^"); parent != after {
				t.Fatalf("restore commit's parent = %s, want %s (history kept)", parent, after)
			}
			if subj := cli(t, root, "log", "-1", "--format=%s"); subj != "memory: restore to "+checkpoint[:12] {
				t.Fatalf("subject %q", subj)
			}
			if diff := cli(t, root, "diff", "--name-only", checkpoint, hash, "--", "."); diff != "" {
				t.Fatalf("restored tree differs from the checkpoint: %s", diff)
			}
			if got := changes(t, r); got != "" {
				t.Fatalf("Changes after restore = %q", got)
			}
			if _, err := os.Stat(filepath.Join(dir, "sub", "c.md")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("file added since is still there: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(b) != "a\n" {
				t.Fatalf("a.md = %q", b)
			}
			if _, err := os.Stat(filepath.Join(dir, ".draft.swp")); err != nil {
				t.Fatalf("untracked file removed: %v", err)
			}
			if rel != "" {
				if staged := cli(t, root, "diff", "--cached", "--name-only"); staged != "notes.md" {
					t.Fatalf("staged after restore = %q", staged)
				}
			}
			if _, err := r.Restore(ctx, checkpoint, "again"); !errors.Is(err, ErrNothingToCommit) {
				t.Fatalf("second restore: %v, want ErrNothingToCommit", err)
			}
		})
	}
}

func TestRestoreRefuses(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(root, "notes.md"), "n\n")
	before := commitAll(t, root, "before the memory folder")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "memory")
	r := open(t, dir)
	for _, c := range []string{"", "--help", "no-such-ref", before} {
		if _, err := r.Restore(context.Background(), c, ""); err == nil {
			t.Errorf("Restore(%q) succeeded", c)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a.md")); err != nil {
		t.Fatalf("a refused restore touched the folder: %v", err)
	}
}
