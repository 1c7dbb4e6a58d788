package undo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
)

// ErrConflict is matched by a *ConflictError.
var ErrConflict = errors.New("later changes touched the same files")

// ConflictError is the refusal to undo a commit whose files changed again
// after it: undoing it would replace those later changes. Options.Force
// undoes it anyway (the later changes stay in history).
type ConflictError struct {
	Commit gitstore.Commit // the commit asked for
	Files  []Conflict
}

// Conflict is one file the undone commit changed that is different now.
type Conflict struct {
	File string
	// Later are the commits after the undone one that changed the file,
	// newest first; none means the change is not committed yet.
	Later []gitstore.Commit
}

func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "not undoing %s (%s): later changes touched the same files:", gitstore.Short(e.Commit.Hash), e.Commit.Subject)
	for _, c := range e.Files {
		fmt.Fprintf(&b, "\n  %s: %s", c.File, c.What())
	}
	fmt.Fprintf(&b, "\nrun 'memoryd undo --force %s' to put them back as they were before it anyway (the later changes stay in history)", gitstore.Short(e.Commit.Hash))
	return b.String()
}

// What says who changed the file after the undone commit.
func (c Conflict) What() string {
	if len(c.Later) == 0 {
		return "changed since, not committed yet"
	}
	var by []string
	for _, l := range c.Later {
		by = append(by, gitstore.Short(l.Hash)+" "+l.Subject)
	}
	return "changed since by " + strings.Join(by, "; ")
}

// conflicts returns the files among files whose content now differs from
// their content right after the commit es[i] (after), each with the later
// commits that changed it. A file changed later and changed back is no
// conflict: undoing would lose nothing.
func conflicts(dir string, es []Entry, i int, files []string, after map[string]gitstore.Version) ([]Conflict, error) {
	var out []Conflict
	for _, f := range files {
		now, err := readWork(dir, f)
		if err != nil {
			return nil, err
		}
		if now.Same(after[f]) {
			continue
		}
		c := Conflict{File: f}
		for _, e := range es[:i] {
			for _, g := range e.Files {
				if g == f {
					c.Later = append(c.Later, e.Commit)
					break
				}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// readWork reads a file of the memory folder as it is on disk.
func readWork(dir, rel string) (gitstore.Version, error) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return gitstore.Version{}, nil
	}
	if err != nil {
		return gitstore.Version{}, err
	}
	if !fi.Mode().IsRegular() {
		return gitstore.Version{}, fmt.Errorf("%s is not a regular file: undo leaves it alone (move it away, or undo with git)", rel)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return gitstore.Version{}, err
	}
	return gitstore.Version{Data: data, OK: true}, nil
}

// change is one file undo puts back.
type change struct {
	File string
	How  string // "removed", "restored" or "brought back"
}

// revert puts every file back as it was in before: written atomically, or
// removed when it was absent. Files already so are left alone. It returns
// what it changed; on error the files changed so far stay changed (the
// caller's commit, or the next undo, records them).
func revert(tx *folder.Tx, dir string, files []string, before map[string]gitstore.Version) ([]change, error) {
	var done []change
	for _, f := range files {
		now, err := readWork(dir, f)
		if err != nil {
			return done, err
		}
		want := before[f]
		if now.Same(want) {
			continue
		}
		c, data := change{File: f, How: "restored"}, want.Data
		switch {
		case !want.OK:
			c.How, data = "removed", nil
		case !now.OK:
			c.How = "brought back"
		}
		if want.OK && data == nil {
			data = []byte{} // an empty file, not an absent one
		}
		if err := tx.Restore(f, data); err != nil {
			return done, fmt.Errorf("undo %s: %w", f, err)
		}
		done = append(done, c)
	}
	return done, nil
}

// revertMessage is the undo commit's message: "memory: undo <short>
// (<what it was>)", the full hash, and a line per file.
func revertMessage(c gitstore.Commit, changes []change) string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory: undo %s (%s)\n\nUndoes %s.\n", gitstore.Short(c.Hash), strings.TrimPrefix(c.Subject, "memory: "), c.Hash)
	for _, ch := range changes {
		fmt.Fprintf(&b, "%s %s\n", ch.How, ch.File)
	}
	return b.String()
}
