package gitstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Commit is one commit that changed the memory folder.
type Commit struct {
	Hash    string
	When    time.Time // author date, as `git log` shows it
	Subject string    // first line of the message
	Files   []string  // changed paths relative to the memory folder, sorted
}

// History returns up to n commits reachable from HEAD that changed the
// memory folder, newest (by committer date) first. A merge is listed only
// when its memory folder differs from every parent's (it resolved
// something); the commits it brought in are listed themselves. Files are
// diffed against the first parent. An unborn branch has no history.
//
// It reads in process: per commit it compares only the memory folder's tree
// hash with its parents', so commits elsewhere in a large notes repository
// cost a few tree lookups each.
func (r *Repo) History(n int) ([]Commit, error) {
	if n <= 0 {
		return nil, nil
	}
	repo, err := openRepo(r.dir)
	if err != nil {
		return nil, err
	}
	ref, err := repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: read HEAD: %w", err)
	}
	iter, err := repo.Log(&git.LogOptions{From: ref.Hash(), Order: git.LogOrderCommitterTime})
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer iter.Close()
	var out []Commit
	err = iter.ForEach(func(c *object.Commit) error {
		files, touched, err := r.touched(repo, c)
		if err != nil || !touched {
			return err
		}
		out = append(out, Commit{
			Hash:    c.Hash.String(),
			When:    c.Author.When,
			Subject: firstLine(strings.TrimLeft(c.Message, "\n")),
			Files:   files,
		})
		if len(out) == n {
			return storer.ErrStop
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// touched reports whether c changed the memory folder relative to every
// parent, and which files it changed relative to the first parent.
func (r *Repo) touched(repo *git.Repository, c *object.Commit) ([]string, bool, error) {
	tree, err := r.memoryTree(c)
	if err != nil {
		return nil, false, err
	}
	var first *object.Tree
	for i, ph := range c.ParentHashes {
		p, err := repo.CommitObject(ph)
		if err != nil {
			return nil, false, fmt.Errorf("read parent %s: %w", ph, err)
		}
		pt, err := r.memoryTree(p)
		if err != nil {
			return nil, false, err
		}
		if treeHash(pt) == treeHash(tree) {
			return nil, false, nil // same as this parent: not a memory change
		}
		if i == 0 {
			first = pt
		}
	}
	if len(c.ParentHashes) == 0 && tree == nil {
		return nil, false, nil
	}
	changes, err := object.DiffTreeWithOptions(context.Background(), first, tree, nil)
	if err != nil {
		return nil, false, fmt.Errorf("diff %s: %w", c.Hash, err)
	}
	files := make([]string, 0, len(changes))
	for _, ch := range changes {
		name := ch.To.Name
		if name == "" {
			name = ch.From.Name
		}
		files = append(files, name)
	}
	sort.Strings(files)
	return files, true, nil
}

func treeHash(t *object.Tree) plumbing.Hash {
	if t == nil {
		return plumbing.ZeroHash
	}
	return t.Hash
}
