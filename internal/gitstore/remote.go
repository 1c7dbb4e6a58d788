package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// RunGit runs one git command in the work tree for the sync package
// (internal/gitsync), which talks to the user's remote: fetch, push and
// the plumbing of a merge made without touching the work tree. It runs as
// every git command of memoryd's does — never prompting, no hooks, English
// messages, a child of this process that Busy does not count as the
// user's — with env (NAME=value) added to the environment. stdin may be
// nil.
//
// On failure it returns git's standard output too (merge-tree prints its
// result and exits 1 when the merge has conflicts) and an error that
// ExitCode reads; one caused by git's locks wraps ErrBusy.
func (r *Repo) RunGit(ctx context.Context, stdin []byte, env []string, args ...string) ([]byte, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	out, err := r.runEnv(ctx, stdin, env, args...)
	var ce *cliError
	if errors.As(err, &ce) {
		return []byte(ce.stdout), err
	}
	return out, err
}

// ExitCode is the exit status of the git command that failed with err
// (RunGit), or -1 when err is not a git command's exit.
func ExitCode(err error) int {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code
	}
	return -1
}

// GitMessage is what git said on standard error when it failed with err
// (RunGit), trimmed; "" when err is not a git command's exit.
func GitMessage(err error) string {
	var ce *cliError
	if errors.As(err, &ce) {
		return strings.TrimSpace(ce.stderr)
	}
	return ""
}

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
