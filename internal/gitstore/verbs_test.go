package gitstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefVerbs: the verbs that read refs and history, and move a ref.
func TestRefVerbs(t *testing.T) {
	ctx := context.Background()
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	first := commitAll(t, root, "first")
	write(t, filepath.Join(dir, "b.md"), "b\n")
	second := commitAll(t, root, "second")
	r := open(t, dir)

	if b, err := r.CurrentBranch(ctx); err != nil || b != "main" {
		t.Errorf("CurrentBranch = %q, %v", b, err)
	}
	cli(t, root, "config", "memoryd.test", "x y")
	if v := r.Config(ctx, "memoryd.test"); v != "x y" {
		t.Errorf("Config = %q", v)
	}
	if v := r.Config(ctx, "memoryd.unset"); v != "" {
		t.Errorf("Config of an unset key = %q", v)
	}
	if h, err := r.ResolveCommit(ctx, "main"); err != nil || h != second {
		t.Errorf("ResolveCommit(main) = %q, %v", h, err)
	}
	if h, err := r.ResolveCommit(ctx, "refs/remotes/origin/main"); err != nil || h != "" {
		t.Errorf("ResolveCommit of a missing ref = %q, %v", h, err)
	}
	if n, err := r.CountCommits(ctx, "main"); err != nil || n != 2 {
		t.Errorf("CountCommits = %d, %v", n, err)
	}
	if a, b, err := r.AheadBehind(ctx, first, second); err != nil || a != 0 || b != 1 {
		t.Errorf("AheadBehind = %d, %d, %v", a, b, err)
	}
	if p, err := r.ChangedPaths(ctx, first, second); err != nil || len(p) != 1 || p[0] != "memory/b.md" {
		t.Errorf("ChangedPaths = %v, %v", p, err)
	}
	if ok, err := r.IsAncestor(ctx, first, second); err != nil || !ok {
		t.Errorf("IsAncestor(first, second) = %v, %v", ok, err)
	}
	if ok, err := r.IsAncestor(ctx, second, first); err != nil || ok {
		t.Errorf("IsAncestor(second, first) = %v, %v", ok, err)
	}
	if err := r.SetRef(ctx, "refs/remotes/origin/main", first, "test"); err != nil {
		t.Fatal(err)
	}
	if h := cli(t, root, "rev-parse", "origin/main"); h != first {
		t.Errorf("SetRef: origin/main = %s", h)
	}
	if s, err := r.Staged(ctx); err != nil || len(s) != 0 {
		t.Errorf("Staged with nothing staged = %v, %v", s, err)
	}
	write(t, filepath.Join(dir, "a.md"), "a2\n")
	cli(t, root, "add", "memory/a.md")
	if s, err := r.Staged(ctx); err != nil || len(s) != 1 || s[0] != "memory/a.md" {
		t.Errorf("Staged = %v, %v", s, err)
	}
	cli(t, root, "checkout", "-q", "--detach")
	if _, err := r.CurrentBranch(ctx); err == nil || !strings.Contains(err.Error(), "detached") {
		t.Errorf("CurrentBranch on a detached HEAD: %v", err)
	}
}

// TestMergeVerbs: a merge made beside the work tree, its conflicts, the
// tree edited in an index of its own, committed, and moved to.
func TestMergeVerbs(t *testing.T) {
	ctx := context.Background()
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "base\n")
	base := commitAll(t, root, "base")
	write(t, filepath.Join(dir, "a.md"), "theirs\n")
	theirs := commitAll(t, root, "theirs")
	cli(t, root, "reset", "-q", "--hard", base)
	write(t, filepath.Join(dir, "a.md"), "ours\n")
	write(t, filepath.Join(dir, "b.md"), "b\n")
	ours := commitAll(t, root, "ours")
	r := open(t, dir)

	m, err := r.MergeTree(ctx, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	st := m.Conflicts["memory/a.md"]
	if st[2].OID == "" || st[3].OID == "" || m.Kinds["memory/a.md"] != "CONFLICT (contents)" {
		t.Fatalf("MergeTree: %+v", m)
	}
	if data, err := r.Blob(ctx, st[3].OID); err != nil || string(data) != "theirs\n" {
		t.Errorf("Blob = %q, %v", data, err)
	}
	if !r.HasPath(ctx, m.Tree, "memory/b.md") || r.HasPath(ctx, m.Tree, "memory/c.md") {
		t.Error("HasPath")
	}
	tree, err := r.EditTree(ctx, m.Tree, map[string]Stage{"memory/a.md": st[3], "memory/_inbox/a.md": st[2], "memory/b.md": {}})
	if err != nil {
		t.Fatal(err)
	}
	commit, err := r.CommitTree(ctx, tree, "merge", ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	files, err := r.TreeFiles(ctx, commit)
	if err != nil || len(files) != 2 || files["a.md"].OID != st[3].OID || files["_inbox/a.md"].OID != st[2].OID {
		t.Fatalf("TreeFiles = %v, %v", files, err)
	}
	if err := r.FastForward(ctx, commit); err != nil {
		t.Fatal(err)
	}
	if got := cli(t, root, "show", "HEAD:memory/a.md"); got != "theirs" {
		t.Errorf("after FastForward a.md = %q", got)
	}
	write(t, filepath.Join(root, "notes.txt"), "mine, uncommitted\n")
	if err := r.ResetKeep(ctx, base); err != nil {
		t.Fatal(err)
	}
	if h := cli(t, root, "rev-parse", "HEAD"); h != base {
		t.Errorf("ResetKeep: HEAD = %s, want %s", h, base)
	}
	if got := cli(t, root, "status", "--porcelain"); got != "?? notes.txt" {
		t.Errorf("ResetKeep left %q", got)
	}
	if _, err := r.MergeTree(ctx, base, "nosuchcommit"); err == nil {
		t.Error("MergeTree of a missing commit did not fail")
	}
}

// TestFetchPushVerbs: a push to an empty remote, a refused one, a fetch
// into a remote-tracking ref, and a fetch of a branch the remote lacks.
func TestFetchPushVerbs(t *testing.T) {
	ctx := context.Background()
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	first := commitAll(t, root, "first")
	remote := t.TempDir()
	cli(t, remote, "init", "-q", "--bare", "-b", "main")
	cli(t, root, "remote", "add", "origin", remote)
	r := open(t, dir)

	if _, err := r.Fetch(ctx, Net{}, "origin", "main", "refs/remotes/origin/main"); !errors.Is(err, ErrNoRemoteBranch) {
		t.Fatalf("Fetch from an empty remote: %v", err)
	}
	if err := r.Push(ctx, Net{}, "origin", first, "main"); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	cli(t, other, "clone", "-q", remote, ".")
	write(t, filepath.Join(other, "memory", "b.md"), "b\n")
	moved := commitAll(t, other, "b")
	cli(t, other, "push", "-q", "origin", "main")

	write(t, filepath.Join(dir, "c.md"), "c\n")
	mine := commitAll(t, root, "c")
	if err := r.Push(ctx, Net{}, "origin", mine, "main"); !errors.Is(err, ErrPushRejected) {
		t.Fatalf("Push behind the remote: %v", err)
	}
	tip, err := r.Fetch(ctx, Net{}, "origin", "main", "refs/remotes/origin/main")
	if err != nil || tip != moved {
		t.Fatalf("Fetch = %q, %v; want %s", tip, err, moved)
	}
	if _, err := r.Fetch(ctx, Net{}, "nosuchremote", "main", "refs/remotes/x/main"); err == nil {
		t.Error("Fetch from an unknown remote did not fail")
	}
}

// TestIgnoredMark: which marked git processes never block a commit.
func TestIgnoredMark(t *testing.T) {
	alive := func(pid int) bool { return pid == 10 }
	for _, c := range []struct {
		env  string
		want bool
	}{
		{"PATH=/bin", false},                 // the user's git
		{markVar + "=10", false},             // a live memoryd's commit
		{markVar + "=10\x00" + netVar, true}, // a live memoryd's fetch
		{markVar + "=11", true},              // left by a dead memoryd
		{"HOME=/x\x00" + markVar + "=11\x00LANG=C", true},
		{markVar + "=x", false},
	} {
		if got := ignoredMark([]byte(c.env), alive); got != c.want {
			t.Errorf("ignoredMark(%q) = %v, want %v", c.env, got, c.want)
		}
	}
}
