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

// A secret in a commit message — a reason typed to `memoryd forget`, say —
// never reaches git: it is replaced by [REDACTED] and the commit goes on.
func TestCommitMessageSecretRedacted(t *testing.T) {
	const token = "ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue"
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "user-a.md"), "a\n")
	r := open(t, dir)
	msg := "memory: forget user-a.md (cli)\n\nReason: it quoted " + token + " by mistake\n\nMemoryd-Kind: forget\nMemoryd-Writer: person\n"
	c, err := r.CommitPaths(context.Background(), msg, []string{"user-a.md"})
	if err != nil || c.Hash == "" || c.Redacted != 1 {
		t.Fatalf("CommitPaths = %+v, %v", c, err)
	}
	got := cli(t, root, "log", "-1", "--format=%B")
	if strings.Contains(got, "ghp_") || !strings.Contains(got, "Reason: it quoted [REDACTED] by mistake") ||
		!strings.HasPrefix(got, "memory: forget user-a.md (cli)") || !strings.Contains(got, "Memoryd-Kind: forget") {
		t.Fatalf("commit message:\n%s", got)
	}

	// Restore, the other way memoryd commits, screens its message too.
	write(t, filepath.Join(dir, "user-a.md"), "a, edited\n")
	if _, err := r.CommitPaths(context.Background(), "memory: edit", []string{"user-a.md"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Restore(context.Background(), c.Hash, "memory: undo\n\nthe token was "+token+"\n"); err != nil {
		t.Fatal(err)
	}
	if got := cli(t, root, "log", "--format=%B"); strings.Contains(got, "ghp_") {
		t.Fatalf("a secret reached the history:\n%s", got)
	}
}

// HeldFiles says what the next commit would keep out, committing nothing.
func TestHeldFiles(t *testing.T) {
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
	held, err := r.HeldFiles(tracked)
	if err != nil || len(held) != 1 || held[0].Path != "user-key.md" || held[0].Reason != "user-key.md:1 holds a secret" {
		t.Fatalf("HeldFiles = %+v, %v", held, err)
	}
	if out, err := cliErr(root, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
		t.Fatalf("HeldFiles committed %s", out)
	}
	if got := cli(t, root, "status", "--porcelain", "--untracked-files=all"); !strings.Contains(got, "?? memory/user-a.md") {
		t.Fatalf("HeldFiles touched the index: %q", got)
	}
}
