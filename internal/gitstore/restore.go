package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Restore makes the memory folder what it was in commit — files changed
// since are put back, files deleted since come back, files added since are
// removed — and records that as a new commit on top of HEAD, whose hash it
// returns. History is never rewritten; paths outside the memory folder are
// not touched; untracked files in the memory folder stay.
//
// commit is anything `git rev-parse` understands (a hash, "HEAD~2"). msg
// empty means "memory: restore to <short hash>". Errors are as for Commit;
// ErrNothingToCommit means the folder already matches commit. After an
// ErrBusy from the commit step the folder is already restored on disk and
// in the index: retrying Restore completes it.
func (r *Repo) Restore(ctx context.Context, commit, msg string) (string, error) {
	if r.gitErr != nil {
		return "", r.gitErr
	}
	if commit == "" || strings.HasPrefix(commit, "-") {
		return "", fmt.Errorf("restore: bad commit %q", commit)
	}
	if err := r.Busy(); err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	out, err := r.run(ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("restore: unknown commit %q: %w", commit, err)
	}
	full := strings.TrimSpace(string(out))
	if err := r.checkHasFolder(full); err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	if msg == "" {
		msg = "memory: restore to " + full[:12]
	}
	msg, _ = r.screenMessage(msg) // as CommitPaths does
	spec := r.rel
	if spec == "" {
		spec = "."
	}
	if _, err := r.run(ctx, nil, literal, "restore", "--source="+full, "--staged", "--worktree",
		"--no-overlay", "--", spec); err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	hash, err := r.commit(ctx, msg, []string{spec})
	if err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	r.log.Debug("restored", "source", full, "commit", hash)
	return hash, nil
}

// checkHasFolder refuses a commit without the memory folder: restoring it
// would mean deleting every memory, which is never what undo means.
func (r *Repo) checkHasFolder(hash string) error {
	repo, done, err := r.open()
	if err != nil {
		return err
	}
	defer done()
	c, err := repo.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return fmt.Errorf("read commit %s: %w", hash, err)
	}
	t, err := r.memoryTree(c)
	if err != nil {
		return err
	}
	if t == nil {
		return errors.New("commit " + hash[:12] + " has no memory folder")
	}
	return nil
}
