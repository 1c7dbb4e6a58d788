package gitstore

import (
	"context"
	"fmt"
)

// Unstage makes the index entries of paths (relative to the memory folder)
// match HEAD again, as `git reset -- paths` does; the work tree is left
// alone. A writer that rolled its files back after a failed commit calls
// it, so that nothing it staged is left for the user's next commit.
func (r *Repo) Unstage(ctx context.Context, paths []string) error {
	if r.gitErr != nil {
		return r.gitErr
	}
	specs, err := r.pathspecs(paths)
	if err != nil || len(specs) == 0 {
		return err
	}
	if _, err := r.run(ctx, nulJoin(specs), literal, "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return fmt.Errorf("unstage: %w", err)
	}
	return nil
}
