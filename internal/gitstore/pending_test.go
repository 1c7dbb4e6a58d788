package gitstore

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCommitPending(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(root, "notes.md"), "outside the folder\n")
	cli(t, root, "add", "notes.md") // the user's own staged file stays staged
	write(t, filepath.Join(dir, "user-a.md"), "a\n")
	write(t, filepath.Join(dir, "x.swp"), "editor leftover\n")
	r := open(t, dir)

	var asked []string
	c, err := r.CommitPending(context.Background(), tracked, func(paths []string) string {
		asked = paths
		return CommitMessage(paths)
	})
	if err != nil || c.Hash == "" || !slices.Equal(c.Paths, []string{"user-a.md"}) || !slices.Equal(asked, c.Paths) {
		t.Fatalf("CommitPending = %+v, %v (message asked for %v)", c, err, asked)
	}
	if got := cli(t, root, "log", "-1", "--format=%H %s"); got != c.Hash+" memory: update user-a.md" {
		t.Fatalf("HEAD is %q", got)
	}
	if got := cli(t, root, "diff", "--cached", "--name-only"); got != "notes.md" {
		t.Fatalf("staged after the commit: %q", got)
	}

	// Nothing pending: no commit, no error, and the message is not asked for.
	asked = nil
	c, err = r.CommitPending(context.Background(), tracked, func(paths []string) string {
		asked = paths
		return "unused"
	})
	if err != nil || c.Hash != "" || asked != nil {
		t.Fatalf("nothing pending: %+v, %v, asked %v", c, err, asked)
	}
}

func TestCommitPathsOutlivesCancelAndSkipsUnchanged(t *testing.T) {
	root, dir := newRepo(t, "")
	write(t, filepath.Join(dir, "user-a.md"), "a\n")
	commitAll(t, root, "first")
	r := open(t, dir)
	if c, err := r.CommitPaths(context.Background(), "memory: nothing", []string{"user-a.md"}); err != nil || c.Hash != "" {
		t.Fatalf("unchanged path: %+v, %v", c, err)
	}
	write(t, filepath.Join(dir, "user-a.md"), "a, edited\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // shutdown has begun: the commit still completes
	c, err := r.CommitPaths(ctx, "memory: at shutdown", []string{"user-a.md"})
	if err != nil || c.Hash == "" {
		t.Fatalf("CommitPaths with a cancelled context: %+v, %v", c, err)
	}
	if got := cli(t, root, "log", "-1", "--format=%s"); !strings.HasPrefix(got, "memory: at shutdown") {
		t.Fatalf("HEAD is %q", got)
	}
}

func TestScreenHoldsFilesBack(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "user-a.md"), "a\n")
	write(t, filepath.Join(dir, "user-key.md"), "token ghp_x\n")
	r, err := Open(dir, Options{Screen: func(rel string) string {
		if rel == "user-key.md" {
			return "user-key.md:1 holds a secret"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.CommitPending(context.Background(), tracked, CommitMessage)
	if err != nil || c.Hash == "" || !slices.Equal(c.Paths, []string{"user-a.md"}) ||
		len(c.Held) != 1 || c.Held[0].Reason != "user-key.md:1 holds a secret" {
		t.Fatalf("CommitPending = %+v, %v", c, err)
	}
	if got := cli(t, root, "ls-files", "memory"); got != "memory/user-a.md" {
		t.Fatalf("committed: %q", got)
	}
	// Only held files pending: no commit, and still reported.
	c, err = r.CommitPending(context.Background(), tracked, CommitMessage)
	if err != nil || c.Hash != "" || len(c.Held) != 1 {
		t.Fatalf("second CommitPending = %+v, %v", c, err)
	}
}
