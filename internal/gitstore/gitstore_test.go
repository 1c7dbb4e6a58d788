package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenSubdirAndRoot(t *testing.T) {
	root, dir := newRepo(t, "notes/memory")
	r := open(t, dir)
	realRoot, _ := filepath.EvalSymlinks(root)
	if r.Root() != realRoot || r.Rel() != "notes/memory" {
		t.Fatalf("Root, Rel = %q, %q; want %q, %q", r.Root(), r.Rel(), realRoot, "notes/memory")
	}
	top := open(t, root)
	if top.Root() != realRoot || top.Rel() != "" {
		t.Fatalf("at the top: Root, Rel = %q, %q; want %q, \"\"", top.Root(), top.Rel(), realRoot)
	}
}

func TestOpenFollowsSymlink(t *testing.T) {
	root, dir := newRepo(t, "memory")
	link := filepath.Join(t.TempDir(), "mem")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	r := open(t, link)
	realRoot, _ := filepath.EvalSymlinks(root)
	if r.Root() != realRoot || r.Rel() != "memory" {
		t.Fatalf("Root, Rel = %q, %q; want %q, memory", r.Root(), r.Rel(), realRoot)
	}
}

func TestOpenNoRepo(t *testing.T) {
	_, err := Open(t.TempDir(), Options{})
	if !errors.Is(err, ErrNoRepo) {
		t.Fatalf("Open outside a repository: %v, want ErrNoRepo", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Fatal("Open of a missing folder succeeded")
	}
}

func TestOpenNoGit(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	write(t, filepath.Join(dir, "b.md"), "b\n")

	r, err := Open(dir, Options{GitBin: filepath.Join(t.TempDir(), "no-such-git")})
	if !errors.Is(err, ErrNoGit) || r == nil {
		t.Fatalf("Open without git = %v, %v; want a Repo and ErrNoGit", r, err)
	}
	if got := changes(t, r); got != "A b.md\n" {
		t.Fatalf("Changes without git = %q", got)
	}
	if h, err := r.History(5); err != nil || len(h) != 1 {
		t.Fatalf("History without git = %v, %v", h, err)
	}
	if _, err := r.Commit(context.Background(), "m", []string{"b.md"}); !errors.Is(err, ErrNoGit) {
		t.Fatalf("Commit without git: %v, want ErrNoGit", err)
	}
	if _, err := r.Restore(context.Background(), "HEAD", ""); !errors.Is(err, ErrNoGit) {
		t.Fatalf("Restore without git: %v, want ErrNoGit", err)
	}
}

func TestOpenBadGit(t *testing.T) {
	_, dir := newRepo(t, "memory")
	r, err := Open(dir, Options{GitBin: "false"})
	if !errors.Is(err, ErrNoGit) || r == nil {
		t.Fatalf("Open with a git that fails = %v, %v; want a Repo and ErrNoGit", r, err)
	}
}

// go-git ignores core.worktree; when the CLI would write elsewhere, Open
// refuses rather than read one tree and commit another.
func TestOpenCLIDisagrees(t *testing.T) {
	root, dir := newRepo(t, "memory")
	cli(t, root, "config", "core.worktree", t.TempDir())
	if _, err := Open(dir, Options{}); err == nil || errors.Is(err, ErrNoGit) {
		t.Fatalf("Open with core.worktree elsewhere: %v, want a hard error", err)
	}
	cli(t, root, "config", "--unset", "core.worktree")
}

func lastAuthor(t *testing.T, root string) string {
	return cli(t, root, "log", "-1", "--format=%an <%ae>|%cn <%ce>")
}

func TestAuthor(t *testing.T) {
	root, dir := newRepo(t, "memory")
	ctx := context.Background()

	write(t, filepath.Join(dir, "a.md"), "a\n")
	r := open(t, dir)
	if r.Author() != testIdentity {
		t.Fatalf("Author() = %q, want the configured %q", r.Author(), testIdentity)
	}
	if _, err := r.Commit(ctx, "m1", []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	if got := lastAuthor(t, root); got != testIdentity+"|"+testIdentity {
		t.Fatalf("configured identity: got %q", got)
	}

	cli(t, root, "config", "user.name", "Repo Person")
	cli(t, root, "config", "user.email", "repo@example.com")
	write(t, filepath.Join(dir, "a.md"), "a2\n")
	if _, err := open(t, dir).Commit(ctx, "m2", []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	if got := lastAuthor(t, root); got != "Repo Person <repo@example.com>|Repo Person <repo@example.com>" {
		t.Fatalf("repository identity: got %q", got)
	}

	r, err := Open(dir, Options{Author: "Over Ride <over@example.com>"})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "a.md"), "a3\n")
	if _, err := r.Commit(ctx, "m3", []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	if got := lastAuthor(t, root); got != "Over Ride <over@example.com>|Over Ride <over@example.com>" {
		t.Fatalf("override: got %q", got)
	}

	for _, bad := range []string{"no email", "<a@b>", "Name <a b@c>", "Name <a@b> x", "Name\n <a@b>"} {
		if _, err := Open(dir, Options{Author: bad}); err == nil {
			t.Errorf("Open with Author %q succeeded", bad)
		}
	}
}

func TestAuthorFallback(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("HOME", empty)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(empty, "none"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root, dir := newRepo(t, "memory")

	r := open(t, dir)
	if r.Author() != FallbackAuthor {
		t.Fatalf("Author() = %q, want %q", r.Author(), FallbackAuthor)
	}
	write(t, filepath.Join(dir, "a.md"), "a\n")
	if _, err := r.Commit(context.Background(), "m", []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	if got := lastAuthor(t, root); got != FallbackAuthor+"|"+FallbackAuthor {
		t.Fatalf("fallback identity: got %q", got)
	}
}

func TestCommitMessage(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{nil, "memory: update"},
		{[]string{"a.md"}, "memory: update a.md"},
		{[]string{"a.md", "sub/b.md"}, "memory: update a.md, b.md"},
		{[]string{"a.md", "b.md", "c.md"}, "memory: update a.md, b.md, c.md"},
		{[]string{"a.md", "b.md", "c.md", "d.md"}, "memory: update a.md, b.md, c.md and 1 more"},
		{[]string{"a.md", "b.md", "c.md", "d.md", "e.md"}, "memory: update a.md, b.md, c.md and 2 more"},
	} {
		if got := CommitMessage(tc.paths); got != tc.want {
			t.Errorf("CommitMessage(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

func TestHistory(t *testing.T) {
	root, dir := newRepo(t, "memory")
	ctx := context.Background()
	r := open(t, dir)
	if h, err := r.History(10); err != nil || len(h) != 0 {
		t.Fatalf("History of an empty repository = %v, %v", h, err)
	}

	write(t, filepath.Join(root, "notes.txt"), "n\n")
	commitAll(t, root, "notes only")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	write(t, filepath.Join(dir, "b.md"), "b\n")
	h1, err := r.Commit(ctx, "memory: first", []string{"a.md", "b.md"})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "notes.txt"), "n2\n")
	commitAll(t, root, "notes again")
	remove(t, filepath.Join(dir, "a.md"))
	write(t, filepath.Join(dir, "sub", "c.md"), "c\n")
	h2, err := r.Commit(ctx, "memory: second\n\nbody", []string{"a.md", "sub/c.md"})
	if err != nil {
		t.Fatal(err)
	}

	hist, err := r.History(10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 {
		t.Fatalf("History = %+v, want 2 commits", hist)
	}
	if hist[0].Hash != h2 || hist[0].Subject != "memory: second" ||
		strings.Join(hist[0].Files, ",") != "a.md,sub/c.md" || hist[0].When.IsZero() {
		t.Errorf("newest = %+v", hist[0])
	}
	if hist[1].Hash != h1 || strings.Join(hist[1].Files, ",") != "a.md,b.md" {
		t.Errorf("oldest = %+v", hist[1])
	}
	if hist, _ := r.History(1); len(hist) != 1 || hist[0].Hash != h2 {
		t.Errorf("History(1) = %+v", hist)
	}

	// At the top of the work tree every commit touches the folder.
	top, err := open(t, root).History(10)
	if err != nil || len(top) != 4 || top[1].Subject != "notes again" ||
		strings.Join(top[0].Files, ",") != "memory/a.md,memory/sub/c.md" {
		t.Errorf("History at the top = %+v, %v", top, err)
	}
}

func TestHistoryMerge(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "base")
	cli(t, root, "checkout", "-q", "-b", "topic")
	write(t, filepath.Join(dir, "t.md"), "t\n")
	topic := commitAll(t, root, "topic memory")
	cli(t, root, "checkout", "-q", "main")
	write(t, filepath.Join(root, "x.txt"), "x\n")
	commitAll(t, root, "main notes")
	cli(t, root, "merge", "-q", "--no-edit", "topic")

	hist, err := open(t, dir).History(10)
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, c := range hist {
		subjects = append(subjects, c.Subject)
	}
	// The clean merge brought t.md from topic: topic's commit is listed,
	// the merge is not (its memory folder equals topic's).
	if strings.Join(subjects, "|") != "topic memory|base" || hist[0].Hash != topic {
		t.Fatalf("History subjects = %q", subjects)
	}
}

// A shallow clone's oldest commit has parents that are not there.
func TestHistoryShallow(t *testing.T) {
	origin, dir := newRepo(t, "memory")
	for i := range 4 {
		write(t, filepath.Join(dir, "a.md"), strings.Repeat("a", i+1)+"\n")
		commitAll(t, origin, "memory "+strings.Repeat("+", i))
	}
	clone := filepath.Join(t.TempDir(), "clone")
	cli(t, origin, "clone", "-q", "--depth", "2", "file://"+origin, clone)
	t.Cleanup(func() { fsck(t, clone) })
	hist, err := open(t, filepath.Join(clone, "memory")).History(10)
	if err != nil || len(hist) != 2 {
		t.Fatalf("History of a shallow clone = %+v, %v; want 2 commits", hist, err)
	}
}
