package gitstore

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// FileCommit is one commit that touched a file: its hash, its author's
// name and its author date.
type FileCommit struct {
	Hash   string
	Author string
	When   time.Time
}

// Authorship is who added a file of the memory folder and who changed it
// last, as the history of HEAD shows them (renames are not followed: a
// renamed file's first commit is the rename).
type Authorship struct {
	First, Last FileCommit
}

// FolderAuthors is Authors of the folder dir in a repository memoryd only
// reads (a project's team memory): no repository handle that could commit
// leaves gitstore.
func FolderAuthors(ctx context.Context, dir string) (map[string]Authorship, error) {
	r, err := Open(dir, Options{})
	if err != nil {
		return nil, err
	}
	return r.Authors(ctx)
}

// Authors returns the Authorship of every file of the memory folder that
// the history of HEAD touched, by path relative to the folder. It runs one
// `git log` for the whole folder, not one per file: a team folder of a
// thousand facts costs one process. A repository without commits gives an
// empty map.
func (r *Repo) Authors(ctx context.Context) (map[string]Authorship, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	out := map[string]Authorship{}
	if _, err := r.run(ctx, nil, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
		return out, nil // no commit yet
	}
	spec := "."
	if r.rel != "" {
		spec = r.rel
	}
	log, err := r.run(ctx, nil, literal, "log", "--no-renames", "--name-only", "-z", "--format=%x1e%H%x1f%an%x1f%aI", "HEAD", "--", spec)
	if err != nil {
		return nil, fmt.Errorf("log %s: %w", spec, err)
	}
	// Newest first: the first commit seen for a file is its last, the
	// final one seen its first.
	for _, rec := range strings.Split(string(log), "\x1e") {
		// -z ends the header with a NUL on some git versions, a newline
		// on others.
		end := strings.IndexAny(rec, "\n\x00")
		if end < 0 {
			continue
		}
		head, files := rec[:end], rec[end+1:]
		f := strings.Split(head, "\x1f")
		if len(f) != 3 {
			continue
		}
		c := FileCommit{Hash: f[0], Author: f[1]}
		c.When, _ = time.Parse(time.RFC3339, f[2])
		for _, p := range strings.Split(files, "\x00") {
			if p = strings.TrimSpace(p); p == "" || !r.inFolder(p) {
				continue
			}
			rel := r.unspec(p)
			a, seen := out[rel]
			if !seen {
				a.Last = c
			}
			a.First = c
			out[rel] = a
		}
	}
	return out, nil
}
