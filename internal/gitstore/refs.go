package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The verbs sync speaks: each is one git command, run as every git of
// memoryd's is (see run). They read refs and history, or move a ref; none
// of them touches the work tree except FastForward and ResetKeep.

// out is run's standard output, trimmed, after the no-git check.
func (r *Repo) out(ctx context.Context, args ...string) (string, error) {
	if r.gitErr != nil {
		return "", r.gitErr
	}
	b, err := r.run(ctx, nil, args...)
	return strings.TrimSpace(string(b)), err
}

// CurrentBranch is the checked-out branch ("main"); the error says when
// HEAD is detached.
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	b, err := r.out(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err == nil && b == "" || ExitCode(err) == 1 {
		return "", errors.New("HEAD is detached")
	}
	return b, err
}

// Config is the value of the configuration key (the repository's, the
// user's, the system's), "" when it is not set.
func (r *Repo) Config(ctx context.Context, key string) string {
	v, _ := r.out(ctx, "config", "--get", key)
	return v
}

// ResolveCommit is the commit rev names, "" without an error when it names
// none (a remote-tracking ref not fetched yet).
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	h, err := r.out(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil && ExitCode(err) == 1 {
		return "", nil
	}
	return h, err
}

// CountCommits is the number of commits reachable from rev.
func (r *Repo) CountCommits(ctx context.Context, rev string) (int, error) {
	n, err := r.out(ctx, "rev-list", "--count", "--end-of-options", rev, "--")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(n)
}

// AheadBehind is how many commits a has that b lacks, and the other way
// round.
func (r *Repo) AheadBehind(ctx context.Context, a, b string) (ahead, behind int, err error) {
	out, err := r.out(ctx, "rev-list", "--left-right", "--count", "--end-of-options", a+"..."+b, "--")
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("git rev-list --count said %q", out)
	}
	ahead, _ = strconv.Atoi(f[0])
	behind, _ = strconv.Atoi(f[1])
	return ahead, behind, nil
}

// IsAncestor reports whether commit a is b or one of b's ancestors.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.out(ctx, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	if ExitCode(err) == 1 {
		return false, nil
	}
	return false, err
}

// Staged lists the paths whose staged version differs from HEAD's,
// relative to the work tree's top.
func (r *Repo) Staged(ctx context.Context) ([]string, error) {
	out, err := r.out(ctx, "diff", "--cached", "--name-only", "--no-renames", "-z")
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(out, "\x00"), "\x00"), nil
}

// SetRef points ref at commit, with reason in its reflog.
func (r *Repo) SetRef(ctx context.Context, ref, commit, reason string) error {
	_, err := r.out(ctx, "update-ref", "-m", reason, ref, commit)
	return err
}

// FastForward moves the checked-out branch, the index and the work tree to
// target, a descendant of HEAD. git checks, before it writes anything,
// that no uncommitted change would be overwritten; the error then says
// which files.
func (r *Repo) FastForward(ctx context.Context, target string) error {
	_, err := r.out(ctx, "merge", "--ff-only", "--quiet", "--no-stat", target)
	return err
}

// ResetKeep moves the checked-out branch, the index and the work tree to
// target, whatever it is to HEAD (git reset --keep): files that differ
// between HEAD and target are replaced, uncommitted changes to other files
// are kept, and git refuses, changing nothing, when an uncommitted change
// would be lost.
func (r *Repo) ResetKeep(ctx context.Context, target string) error {
	_, err := r.out(ctx, "reset", "--quiet", "--keep", target)
	return err
}

// ChangedPaths lists the paths, relative to the work tree's top, whose
// content differs between the commits from and to (renames as a deletion
// and an addition).
func (r *Repo) ChangedPaths(ctx context.Context, from, to string) ([]string, error) {
	out, err := r.out(ctx, "diff", "--name-only", "--no-renames", "-z", from, to, "--")
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(out, "\x00"), "\x00"), nil
}
