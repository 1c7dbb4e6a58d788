package gitstore

import (
	"context"
	"fmt"
	"strings"
)

// CommitTree makes a commit object of tree with parents and msg, as
// memoryd's author (Author), and returns its hash. No branch moves: the
// caller fast-forwards to it.
func (r *Repo) CommitTree(ctx context.Context, tree, msg string, parents ...string) (string, error) {
	if r.gitErr != nil {
		return "", r.gitErr
	}
	msg, _ = r.screenMessage(msg)
	args := append([]string{}, r.identity...)
	args = append(args, "commit-tree", tree)
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-F", "-")
	out, err := r.run(ctx, []byte(msg), args...)
	if err != nil {
		return "", fmt.Errorf("commit-tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// GitDir is the work tree's git directory (where HEAD and MERGE_HEAD are).
func (r *Repo) GitDir() string { return r.gitDir }
