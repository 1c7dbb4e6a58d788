package gitstore

import (
	"context"
	"fmt"
)

// Ignored returns which of paths (relative to the memory folder) git would
// never commit: files its ignore rules exclude that it does not track. No
// checkpoint holds such a file, so nothing may change or delete it
// unattended. Paths may not exist.
func (r *Repo) Ignored(ctx context.Context, paths []string) (map[string]bool, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	specs, err := r.pathspecs(paths)
	if err != nil || len(specs) == 0 {
		return nil, err
	}
	ignored, err := r.checkIgnore(ctx, specs)
	if err != nil {
		return nil, fmt.Errorf("check ignored files: %w", err)
	}
	out := make(map[string]bool, len(ignored))
	for s := range ignored {
		out[r.unspec(s)] = true
	}
	return out, nil
}
