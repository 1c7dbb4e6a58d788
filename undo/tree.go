package undo

import (
	"errors"
	"fmt"
	"io"
	"path"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/memoryd/memoryd/gitstore"
	"github.com/memoryd/memoryd/index"
)

// reader reads memory files as they were in a commit, with go-git (reads
// only: every write goes through gitstore and the git CLI). It belongs in
// gitstore, beside History; it lives here until gitstore offers it.
type reader struct {
	repo *git.Repository
	rel  string // the memory folder in the work tree, "" at its top
}

func openReader(r *gitstore.Repo) (*reader, error) {
	repo, err := git.PlainOpenWithOptions(r.Root(), &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", r.Root(), err)
	}
	return &reader{repo: repo, rel: r.Rel()}, nil
}

// version is a file's content in one commit; !ok means it was absent.
type version struct {
	data []byte
	ok   bool
}

func (v version) same(w version) bool { return v.ok == w.ok && string(v.data) == string(w.data) }

// files reads the memory-folder paths in commit hash and, as the second
// result, in its first parent (all absent for a root commit).
func (rd *reader) files(hash string, paths []string) (in, before map[string]version, err error) {
	c, err := rd.repo.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return nil, nil, fmt.Errorf("read commit %s: %w", short(hash), err)
	}
	if in, err = rd.read(c, paths); err != nil {
		return nil, nil, err
	}
	if c.NumParents() == 0 {
		return in, map[string]version{}, nil
	}
	p, err := c.Parent(0)
	if err != nil {
		return nil, nil, fmt.Errorf("read the parent of %s (a shallow clone?): %w", short(hash), err)
	}
	before, err = rd.read(p, paths)
	return in, before, err
}

// read reads paths in commit c. A path that is not a regular file there (a
// link, a submodule) is an error: undo writes only regular files.
func (rd *reader) read(c *object.Commit, paths []string) (map[string]version, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read the tree of %s: %w", short(c.Hash.String()), err)
	}
	out := make(map[string]version, len(paths))
	for _, p := range paths {
		full := p
		if rd.rel != "" {
			full = path.Join(rd.rel, p)
		}
		e, err := tree.FindEntry(full)
		if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			out[p] = version{}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find %s in %s: %w", p, short(c.Hash.String()), err)
		}
		if e.Mode != filemode.Regular && e.Mode != filemode.Executable {
			return nil, fmt.Errorf("%s is not a regular file in %s: undo it with git", p, short(c.Hash.String()))
		}
		blob, err := rd.repo.BlobObject(e.Hash)
		if err != nil {
			return nil, fmt.Errorf("read %s in %s: %w", p, short(c.Hash.String()), err)
		}
		if blob.Size > index.MaxFileSize*4 {
			return nil, fmt.Errorf("%s in %s is larger than a memory file can be: undo it with git", p, short(c.Hash.String()))
		}
		rc, err := blob.Reader()
		if err != nil {
			return nil, fmt.Errorf("read %s in %s: %w", p, short(c.Hash.String()), err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s in %s: %w", p, short(c.Hash.String()), err)
		}
		out[p] = version{data: data, ok: true}
	}
	return out, nil
}
