package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// operations are the per-worktree git directory entries that mean a merge,
// rebase, cherry-pick, revert or `git am` is under way, with a reason.
var operations = []struct{ name, reason string }{
	{"MERGE_HEAD", "a merge is in progress"},
	{"rebase-merge", "a rebase is in progress"},
	{"rebase-apply", "a rebase or am is in progress"},
	{"CHERRY_PICK_HEAD", "a cherry-pick is in progress"},
	{"REVERT_HEAD", "a revert is in progress"},
}

// Busy reports whether memoryd must not commit now. It returns nil, or an
// error wrapping ErrBusy that names the reason: another git command holds
// index.lock, an operation is under way (see InOperation), the index has
// unmerged entries, or HEAD is detached. The answer can change at any
// moment; Commit re-checks and git's locks settle the remaining races.
func (r *Repo) Busy() error {
	if exists(filepath.Join(r.gitDir, "index.lock")) {
		return fmt.Errorf("%w: index.lock exists (another git command is running)", ErrBusy)
	}
	if reason := r.operation(); reason != "" {
		return fmt.Errorf("%w: %s", ErrBusy, reason)
	}
	head, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return fmt.Errorf("%w: read HEAD: %w", ErrBusy, err)
	}
	if !bytes.HasPrefix(head, []byte("ref: ")) {
		return fmt.Errorf("%w: HEAD is detached (no branch checked out)", ErrBusy)
	}
	unmerged, err := r.unmerged()
	if err != nil {
		return fmt.Errorf("%w: read index: %w", ErrBusy, err)
	}
	if unmerged != "" {
		return fmt.Errorf("%w: unmerged index entries (%s)", ErrBusy, unmerged)
	}
	return nil
}

// InOperation reports whether a merge, rebase, cherry-pick, revert or
// `git am` is under way in the work tree. While it is, memoryd writes
// nothing into the memory folder: a tracked file changing under a running
// `git pull --rebase` makes it fail. A mere index.lock does not count.
func (r *Repo) InOperation() bool { return r.operation() != "" }

func (r *Repo) operation() string {
	for _, op := range operations {
		if exists(filepath.Join(r.gitDir, op.name)) {
			return op.reason
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
