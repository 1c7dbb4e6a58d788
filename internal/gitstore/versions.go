package gitstore

import (
	"errors"
	"fmt"
	"io"
	"path"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Version is a file's content in one commit; OK is false when the file was
// absent there.
type Version struct {
	Data []byte
	OK   bool
}

// Same reports whether v and w are the same content, or both absent.
func (v Version) Same(w Version) bool { return v.OK == w.OK && string(v.Data) == string(w.Data) }

// FilesAt reads paths of the memory folder as they were in commit hash and,
// as the second result, in its first parent (all absent for a root commit).
// It reads in process, with go-git. A path that is not a regular file there
// (a link, a submodule) or is larger than limit bytes is an error: whoever
// writes it back writes only memory files.
func (r *Repo) FilesAt(hash string, paths []string, limit int64) (in, before map[string]Version, err error) {
	repo, done, err := r.open()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	c, err := repo.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return nil, nil, fmt.Errorf("read commit %s: %w", Short(hash), err)
	}
	if in, err = r.readAt(repo, c, paths, limit); err != nil {
		return nil, nil, err
	}
	if c.NumParents() == 0 {
		return in, map[string]Version{}, nil
	}
	p, err := c.Parent(0)
	if err != nil {
		return nil, nil, fmt.Errorf("read the parent of %s (a shallow clone?): %w", Short(hash), err)
	}
	before, err = r.readAt(repo, p, paths, limit)
	return in, before, err
}

// readAt reads paths of the memory folder in commit c.
func (r *Repo) readAt(repo *git.Repository, c *object.Commit, paths []string, limit int64) (map[string]Version, error) {
	tree, err := c.Tree()
	at := Short(c.Hash.String())
	if err != nil {
		return nil, fmt.Errorf("read the tree of %s: %w", at, err)
	}
	out := make(map[string]Version, len(paths))
	for _, p := range paths {
		e, err := tree.FindEntry(path.Join(r.rel, p))
		switch {
		case errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound):
			out[p] = Version{}
			continue
		case err != nil:
			return nil, fmt.Errorf("find %s in %s: %w", p, at, err)
		case e.Mode != filemode.Regular && e.Mode != filemode.Executable:
			return nil, fmt.Errorf("%s is not a regular file in %s: undo it with git", p, at)
		}
		data, err := readBlob(repo, e.Hash, limit)
		if err != nil {
			return nil, fmt.Errorf("read %s in %s: %w", p, at, err)
		}
		out[p] = Version{Data: data, OK: true}
	}
	return out, nil
}

// readBlob reads the blob hash, refusing one over limit.
func readBlob(repo *git.Repository, hash plumbing.Hash, limit int64) ([]byte, error) {
	blob, err := repo.BlobObject(hash)
	if err != nil {
		return nil, err
	}
	if blob.Size > limit {
		return nil, fmt.Errorf("it is %d bytes, larger than a memory file can be: undo it with git", blob.Size)
	}
	rc, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// Short is a commit hash as people quote it: its first 12 characters.
func Short(hash string) string { return hash[:min(12, len(hash))] }
