package gitstore

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Change is one path of the memory folder whose working copy differs from
// HEAD: Status is 'A' (not in HEAD), 'M' (content or file type differs, or
// only the index differs from HEAD) or 'D' (gone from disk, and in HEAD or
// in the index). Path is slash-separated and relative to the memory folder.
type Change struct {
	Path   string
	Status byte
}

// headEntry is a file of HEAD's tree, or of the index, under the memory
// folder.
type headEntry struct {
	hash plumbing.Hash
	link bool
}

// workEntry is a file on disk in the memory folder.
type workEntry struct {
	link bool
	bad  bool // its name has a control character: never committed (see Changes)
}

// Changes compares the memory folder on disk, and the index, with HEAD's
// tree, in process, and returns the paths that differ, sorted. Only paths
// for which tracked(rel) is true are considered, on all sides, so a tracked
// file deleted from disk is 'D' and an untracked editor leftover is nothing.
// New files that the repository's ignore rules exclude are left out too
// (asked of `git check-ignore`, only when there are new files). In a
// repository without commits every present file is 'A'.
//
// The index counts so that whatever a git command left staged is found and
// committed: a file whose working copy equals HEAD while the index holds
// something else (`git rm --cached`, an edit staged and then undone on
// disk) is 'M', and one staged but gone from disk and from HEAD is 'D'.
// Committing either records the working copy, which puts the index back in
// line with HEAD; Commit then reports ErrNothingToCommit. A split index
// (core.splitIndex), whose entries this package does not read, is left out
// of the comparison.
//
// A name with a control character (a byte below 0x20, or 0x7f) is never
// reported as new or changed: git would commit it, but go-git, which reads
// HEAD here, and every clone's go-git after a pull, refuse such a tree
// entry. One that is already in HEAD is read without failing, and reported
// 'D' once it is gone from disk, if tracked accepts the name with its
// control characters replaced, so that renaming it also takes it out of
// HEAD.
//
// Files are compared as git blobs (sha1 of "blob <size>\0" + content).
// Asking the object store for a blob's size first, to skip hashing files
// whose size changed, was measured to cost more than it saves: it opens the
// pack and loads its index, while HEAD's memory tree is cached by commit
// and memory files are small. Nor is there a stat cache: hashing 200 memory
// files costs ~2 ms, and a cache keyed on (size, mtime) would bring back
// git's "racily clean" problem. Git's clean/smudge filters, eol conversion
// (autocrlf, text=auto) and core.fileMode are out of scope: a memory folder
// is plain LF markdown. The executable bit is ignored for the same reason,
// so a file whose only difference is its mode is not reported.
//
// Changes is safe to call at any time, also while git is busy; it reads a
// snapshot and never writes.
func (r *Repo) Changes(tracked func(rel string) bool) ([]Change, error) {
	changes, _, err := r.changes(tracked)
	return changes, err
}

// changes is Changes, and the new files it left out because git ignores
// them.
func (r *Repo) changes(tracked func(rel string) bool) ([]Change, []IgnoredFile, error) {
	repo, done, err := r.open()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	head, err := r.headFiles(repo, tracked)
	if err != nil {
		return nil, nil, fmt.Errorf("changes: %w", err)
	}
	work, err := r.workFiles(tracked)
	if err != nil {
		return nil, nil, fmt.Errorf("changes: %w", err)
	}
	staged, split, err := r.indexFiles(tracked)
	if err != nil {
		return nil, nil, fmt.Errorf("changes: %w", err)
	}

	var changes, added []Change
	for rel, we := range work {
		he, inHead := head[rel]
		ie, inIndex := staged[rel]
		delete(head, rel)
		delete(staged, rel)
		switch {
		case we.bad:
			continue
		case !inHead:
			added = append(added, Change{Path: rel, Status: 'A'})
			continue
		}
		st, err := r.compare(rel, we, he)
		if err != nil {
			return nil, nil, fmt.Errorf("changes: %w", err)
		}
		if st == 0 && !split && (!inIndex || ie != he) {
			st = 'M' // the index differs from HEAD and the working copy
		}
		if st != 0 {
			changes = append(changes, Change{Path: rel, Status: st})
		}
	}
	for rel := range head {
		delete(staged, rel)
		changes = append(changes, Change{Path: rel, Status: 'D'})
	}
	for rel := range staged {
		if !split {
			changes = append(changes, Change{Path: rel, Status: 'D'}) // staged, then deleted
		}
	}
	added, ignored, err := r.dropIgnored(added)
	if err != nil {
		return nil, nil, fmt.Errorf("changes: %w", err)
	}
	changes = append(changes, added...)
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, ignored, nil
}

// considered reports whether Changes looks at rel: tracked accepts it, or
// rel has a control character and tracked accepts it with those replaced.
func considered(tracked func(string) bool, rel string) bool {
	if !hasControl(rel) {
		return tracked(rel)
	}
	return tracked(strings.Map(func(c rune) rune {
		if c < 0x20 || c == 0x7f {
			return '_'
		}
		return c
	}, rel))
}

// hasControl reports whether name has a byte below 0x20 or 0x7f, which
// go-git refuses in a tree entry's name.
func hasControl(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return true
		}
	}
	return false
}

// memoryTree returns c's tree of the memory folder, or nil when c has none.
func (r *Repo) memoryTree(c *object.Commit) (*object.Tree, error) {
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", c.Hash, err)
	}
	if r.rel == "" {
		return t, nil
	}
	sub, err := t.Tree(r.rel)
	if errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read tree %s of %s: %w", r.rel, c.Hash, err)
	}
	return sub, nil
}

// headFiles lists the tracked files of HEAD's memory folder. The full list
// is cached by HEAD's commit hash, which names an immutable tree, so a
// flush while HEAD has not moved reads no objects at all.
func (r *Repo) headFiles(repo *git.Repository, tracked func(string) bool) (map[string]headEntry, error) {
	ref, err := repo.Head()
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		return map[string]headEntry{}, nil // unborn branch
	case err != nil:
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	commit := ref.Hash()

	r.cache.Lock()
	all := r.cache.files
	if r.cache.commit != commit {
		all = nil
	}
	r.cache.Unlock()
	if all == nil {
		if all, err = r.treeFiles(repo, commit); err != nil {
			return nil, err
		}
		r.cache.Lock()
		r.cache.commit, r.cache.files = commit, all
		r.cache.Unlock()
	}
	files := make(map[string]headEntry, len(all))
	for name, e := range all {
		if considered(tracked, name) {
			files[name] = e
		}
	}
	return files, nil
}

// treeFiles lists every file of the memory folder in commit. Names go-git
// would refuse to check out (a control character, say) are listed too: the
// walk only reads the tree, and git itself accepts them, so one such file
// in HEAD must not stop every later commit.
func (r *Repo) treeFiles(repo *git.Repository, commit plumbing.Hash) (map[string]headEntry, error) {
	files := make(map[string]headEntry)
	c, err := repo.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit: %w", err)
	}
	t, err := r.memoryTree(c)
	if err != nil || t == nil {
		return files, err
	}
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	w.SkipPathValidation()
	for {
		name, e, err := w.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("walk HEAD tree: %w", err)
		}
		if e.Mode.IsFile() { // not trees or submodules
			files[name] = headEntry{hash: e.Hash, link: e.Mode == filemode.Symlink}
		}
	}
}
