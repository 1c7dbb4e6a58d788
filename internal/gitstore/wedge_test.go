package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Whatever git left staged for memory files — a deletion by `git rm` or
// `git mv`, or by memoryd's own `git add` whose commit never ran — every
// later commit goes through, and the memory folder's index entries end up
// equal to HEAD.
func TestCommitAnyIndexState(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, root, dir string)
		changes string // Changes before the commit
		commit  bool   // a commit is made (else ErrNothingToCommit)
		tree    string // HEAD's memory folder afterwards
	}{{
		name:    "git rm",
		setup:   func(t *testing.T, root, dir string) { cli(t, root, "rm", "-q", "memory/x.md") },
		changes: "D x.md\n", commit: true, tree: "memory/keep.md",
	}, {
		name:    "git mv",
		setup:   func(t *testing.T, root, dir string) { cli(t, root, "mv", "memory/x.md", "memory/y.md") },
		changes: "D x.md\nA y.md\n", commit: true, tree: "memory/keep.md\nmemory/y.md",
	}, {
		// memoryd's add ran, its commit did not (killed, timed out, lost
		// a lock race): the deletion stays staged.
		name: "add without commit",
		setup: func(t *testing.T, root, dir string) {
			remove(t, filepath.Join(dir, "x.md"))
			cli(t, root, "add", "-A", "--", "memory/x.md")
		},
		changes: "D x.md\n", commit: true, tree: "memory/keep.md",
	}, {
		name: "staged new file then deleted",
		setup: func(t *testing.T, root, dir string) {
			write(t, filepath.Join(dir, "new.md"), "new\n")
			cli(t, root, "add", "memory/new.md")
			remove(t, filepath.Join(dir, "new.md"))
		},
		changes: "D new.md\n", commit: false, tree: "memory/keep.md\nmemory/x.md",
	}, {
		name:    "git rm --cached",
		setup:   func(t *testing.T, root, dir string) { cli(t, root, "rm", "-q", "--cached", "memory/x.md") },
		changes: "M x.md\n", commit: false, tree: "memory/keep.md\nmemory/x.md",
	}, {
		name: "staged edit undone on disk",
		setup: func(t *testing.T, root, dir string) {
			write(t, filepath.Join(dir, "x.md"), "staged\n")
			cli(t, root, "add", "memory/x.md")
			write(t, filepath.Join(dir, "x.md"), "x\n")
		},
		changes: "M x.md\n", commit: false, tree: "memory/keep.md\nmemory/x.md",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, dir := newRepo(t, "memory")
			write(t, filepath.Join(dir, "x.md"), "x\n")
			write(t, filepath.Join(dir, "keep.md"), "keep\n")
			write(t, filepath.Join(root, "notes.txt"), "notes\n")
			commitAll(t, root, "first")
			write(t, filepath.Join(root, "notes.txt"), "the user's staged edit\n")
			cli(t, root, "add", "notes.txt")
			tt.setup(t, root, dir)

			r := open(t, dir)
			got := changes(t, r)
			if got != tt.changes {
				t.Fatalf("Changes = %q, want %q", got, tt.changes)
			}
			var paths []string
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				paths = append(paths, line[2:])
			}
			before := cli(t, root, "rev-parse", "HEAD")
			_, err := r.Commit(context.Background(), CommitMessage(paths), paths)
			switch {
			case tt.commit && err != nil:
				t.Fatalf("Commit: %v", err)
			case !tt.commit && !errors.Is(err, ErrNothingToCommit):
				t.Fatalf("Commit = %v, want ErrNothingToCommit", err)
			}
			if moved := cli(t, root, "rev-parse", "HEAD") != before; moved != tt.commit {
				t.Fatalf("HEAD moved: %v, want %v", moved, tt.commit)
			}
			if tree := cli(t, root, "ls-tree", "-r", "--name-only", "HEAD", "memory/"); tree != tt.tree {
				t.Fatalf("HEAD's memory folder = %q, want %q", tree, tt.tree)
			}
			if staged := cli(t, root, "diff", "--cached", "--name-only"); staged != "notes.txt" {
				t.Fatalf("staged afterwards = %q, want only the user's notes.txt", staged)
			}
			if got := changes(t, r); got != "" {
				t.Fatalf("Changes afterwards = %q", got)
			}
		})
	}
}

// A name with a control character is never committed, and one that is
// already in HEAD (committed by hand) breaks neither Changes, Commit nor
// History; deleting it commits the deletion, which repairs HEAD.
func TestControlCharacterNames(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "a.md"), "a\n")
	commitAll(t, root, "first")
	for _, name := range []string{"tab\there.md", "esc\x1b[31m.md", "nl\nx.md", "del\x7f.md"} {
		write(t, filepath.Join(dir, name), "by hand\n")
	}
	commitAll(t, root, "control characters, committed by hand")

	r := open(t, dir)
	if got := changes(t, r); got != "" {
		t.Fatalf("Changes with control characters in HEAD = %q, want nothing", got)
	}
	write(t, filepath.Join(dir, "b.md"), "b\n")
	if _, err := r.Commit(context.Background(), "m", []string{"b.md"}); err != nil {
		t.Fatalf("Commit with control characters in HEAD: %v", err)
	}
	if h, err := r.History(5); err != nil || len(h) != 3 {
		t.Fatalf("History = %d commits, %v; want 3", len(h), err)
	}

	// A new one is neither reported nor committed, even when asked to.
	write(t, filepath.Join(dir, "new\x01.md"), "new\n")
	if got := changes(t, r); got != "" {
		t.Fatalf("Changes with a new control-character name = %q, want nothing", got)
	}
	before := cli(t, root, "rev-parse", "HEAD")
	if _, err := r.Commit(context.Background(), "m", []string{"new\x01.md"}); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("Commit of a control-character name = %v, want ErrNothingToCommit", err)
	}
	if cli(t, root, "rev-parse", "HEAD") != before {
		t.Fatal("a control-character name was committed")
	}

	// Renaming one away commits the new name and the deletion.
	if err := os.Rename(filepath.Join(dir, "tab\there.md"), filepath.Join(dir, "tab-here.md")); err != nil {
		t.Fatal(err)
	}
	if got := changes(t, r); got != "D tab\there.md\nA tab-here.md\n" {
		t.Fatalf("Changes after the rename = %q", got)
	}
	renamed := []string{"tab-here.md", "tab\there.md"}
	if _, err := r.Commit(context.Background(), CommitMessage(renamed), renamed); err != nil {
		t.Fatalf("Commit of the rename: %v", err)
	}
	if subject := cli(t, root, "log", "-1", "--format=%s%x00%b"); strings.ContainsAny(subject, "\t\n") || !strings.Contains(subject, `"tab\there.md"`) {
		t.Fatalf("commit subject = %q, want the name quoted on one line", subject)
	}
	tree := cli(t, root, "ls-tree", "-r", "-z", "--name-only", "HEAD", "memory/")
	if strings.Contains(tree, "tab\there") || !strings.Contains(tree, "tab-here.md") || strings.Contains(tree, "new\x01") {
		t.Fatalf("HEAD's memory folder = %q", tree)
	}
}

// The user's hooks never run for memoryd's commits: not the ones
// --no-verify skips, not the ones it does not (a failing
// prepare-commit-msg or reference-transaction used to block every commit,
// a slow post-commit to make a landed commit look timed out), and not when
// core.hooksPath points elsewhere.
func TestCommitRunsNoHooks(t *testing.T) {
	hooks := map[string]string{
		"pre-commit":            "exit 1",
		"prepare-commit-msg":    "exit 1",
		"commit-msg":            "exit 1",
		"reference-transaction": "exit 1",
		"post-index-change":     "exit 1",
		"post-commit":           "sleep 30",
	}
	for _, where := range []string{".git/hooks", "core.hooksPath"} {
		for hook, body := range hooks {
			t.Run(where+"/"+hook, func(t *testing.T) {
				root, dir := newRepo(t, "memory")
				write(t, filepath.Join(dir, "a.md"), "a\n")
				commitAll(t, root, "first")
				hookDir := filepath.Join(root, ".git", "hooks")
				if where == "core.hooksPath" {
					hookDir = t.TempDir()
					cli(t, root, "config", "core.hooksPath", hookDir)
				}
				ran := filepath.Join(t.TempDir(), "ran")
				script := "#!/bin/sh\n: > '" + ran + "'\n" + body + "\n"
				if err := os.WriteFile(filepath.Join(hookDir, hook), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
				r := open(t, dir)
				write(t, filepath.Join(dir, "a.md"), "a2\n")
				write(t, filepath.Join(dir, "b.md"), "b\n")
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				start := time.Now()
				hash, err := r.Commit(ctx, "m", []string{"a.md", "b.md"})
				if err != nil {
					t.Fatalf("Commit with a %s hook: %v", hook, err)
				}
				if took := time.Since(start); took > 5*time.Second {
					t.Fatalf("Commit took %v", took)
				}
				if head := cli(t, root, "rev-parse", "HEAD"); head != hash {
					t.Fatalf("Commit returned %s, HEAD is %s", hash, head)
				}
				if exists(ran) {
					t.Fatalf("the %s hook ran", hook)
				}
			})
		}
	}
}
