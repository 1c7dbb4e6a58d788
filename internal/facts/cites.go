package facts

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
)

// dir is the folder this writer works from: cites resolve from it, and a
// fact's project root is found from it first (cite.RootOf).
func (w *Writer) dir() string {
	if w.opts.Dir != "" {
		return w.opts.Dir
	}
	wd, _ := os.Getwd()
	return wd
}

// citesOf records f's cites with each file's blob now, or says why it
// cannot: a global fact has no project to cite files of, CiteFrom must be
// in the fact's project, and every path must be a file inside its root
// (cite.Resolve).
func (w *Writer) citesOf(f Fact) ([]index.Cite, error) {
	if len(f.Cites) == 0 {
		return nil, nil
	}
	if f.Project == "" {
		return nil, fmt.Errorf("%w: a global fact cites no files, because cited paths are relative to a project's root; give the fact its project, or leave out the cites", ErrInvalid)
	}
	from := f.CiteFrom
	if from == "" {
		from = w.dir()
	}
	if slug := project.Slug(from); slug != f.Project {
		return nil, fmt.Errorf("%w: the fact is in project %s, but its cites are resolved from %s, in project %s: cite the files from inside a checkout of %s", ErrInvalid, f.Project, from, slug, f.Project)
	}
	cites, err := recordCites(project.Root(from), from, f.Cites, false)
	if err != nil {
		return nil, fmt.Errorf("%w: cites %w", ErrInvalid, err)
	}
	return cites, nil
}

// refreshCites records in m the blobs of the files it cites now, as an
// edit confirms what it keeps citing, and reports whether they changed.
// Where the fact's project is not found from here nothing is compared
// and m is left alone; a cited file that is gone is an error (drop the
// cite).
func refreshCites(m *index.Memory, dir string) (bool, error) {
	if len(m.Cites) == 0 {
		return false, nil
	}
	root := cite.RootOf(m, dir)
	if root == "" {
		return false, nil
	}
	cites, err := cite.Refresh(root, m.Cites)
	if err != nil {
		return false, fmt.Errorf("%w: cites %w", ErrInvalid, err)
	}
	same := len(cites) == len(m.Cites)
	for i := 0; same && i < len(cites); i++ {
		same = cites[i] == m.Cites[i]
	}
	m.Cites = cites
	return !same, nil
}

// restated is m's cites after m is replaced without new ones: whoever
// restates a fact vouches for it as the files are now, so each file still
// inside the root gets its blob now; a file that is gone keeps the version
// recorded, and the fact stays marked until the cite is dropped. Where the
// fact's project is not found, the cites stay as they were.
func restated(m *index.Memory, dir string) []index.Cite {
	root := cite.RootOf(m, dir)
	if root == "" || len(m.Cites) == 0 {
		return m.Cites
	}
	out := make([]index.Cite, len(m.Cites))
	for i, c := range m.Cites {
		out[i] = c
		if now, err := cite.Refresh(root, []index.Cite{c}); err == nil {
			out[i] = now[0]
		}
	}
	return out
}

// ErrNoRoot means the root of a fact's project is not found from here, so
// its cited files cannot be read.
var ErrNoRoot = errors.New("its project's root is not found from here")

// Confirm records the blobs the files cited by the fact named name have
// now — a person saying the fact still holds — and sets
// metadata.updated, in a commit of its own ("memory: confirm x.md (cli)").
// A fact that cites nothing, a readonly fact, a fact whose project's root
// is not found from this writer's folder, and a cited file that is gone
// are refused.
func (w *Writer) Confirm(ctx context.Context, name string) (Done, error) {
	return w.locked(ctx, func(snap index.Snapshot) (Done, []byte, string, error) {
		m, err := Find(snap, name)
		switch {
		case err != nil:
			return Done{}, nil, "", err
		case m.Readonly:
			return Done{}, nil, "", fmt.Errorf("%s %w (metadata.readonly): memoryd never changes it", m.File, ErrReadonly)
		case len(m.Cites) == 0:
			return Done{}, nil, "", fmt.Errorf("%w: %s cites no files, so there is nothing to confirm", ErrInvalid, m.File)
		}
		root := cite.RootOf(m, w.dir())
		if root == "" {
			return Done{}, nil, "", fmt.Errorf("%s: %w (project %s): run the command inside a checkout of %s", m.File, ErrNoRoot, m.Scope(), m.Scope())
		}
		cites, err := cite.Refresh(root, m.Cites)
		if err != nil {
			return Done{}, nil, "", fmt.Errorf("%s: %w", m.File, err)
		}
		c := *m
		c.Cites, c.Updated = cites, w.today()
		return Done{File: m.File, Action: "confirmed"}, c.Format(), m.Hash, nil
	})
}
