package gitstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// unmerged returns the first path with a conflict stage in the work tree's
// index, or "". Conflicts can outlive any operation — a `git stash pop`
// that did not apply cleanly leaves them — and `git commit -- <paths>`
// does not refuse to commit beside them, so Busy must look.
func (r *Repo) unmerged() (string, error) {
	data, err := os.ReadFile(filepath.Join(r.gitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil // no index yet
	}
	if err != nil {
		return "", err
	}
	return firstUnmerged(data)
}

// firstUnmerged returns the path of the first entry of a git index file
// with a non-zero stage, or "".
func firstUnmerged(data []byte) (string, error) {
	var found string
	_, err := scanIndex(data, func(e *indexEntry) bool {
		if e.stage != 0 {
			found = string(e.name)
			return false
		}
		return true
	})
	return found, err
}
