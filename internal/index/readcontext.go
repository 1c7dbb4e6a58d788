package index

import (
	"bytes"
	"errors"
	"io/fs"

	"github.com/memoryd/memoryd/internal/project"
)

// ReadContext is Context for the memory folder dir, as `memoryd context`
// prints it at every agent session start, so it reads as little as it can:
// the generated files when they are there and fit the budget together
// (built without what the gate holds), else a scan, less what hold holds.
func ReadContext(dir, slug string, b Budget, projectOnly bool, hold func(*Memory) bool) ([]byte, error) {
	if text, ok := generatedContext(dir, slug, b, projectOnly); ok {
		return text, nil
	}
	snap, err := Scan(dir)
	if err != nil {
		return nil, err
	}
	snap = snap.Without(hold)
	if projectOnly && !hasProject(snap, slug) {
		return nil, nil
	}
	return Context(snap, slug, b, projectOnly), nil
}

func hasProject(snap Snapshot, slug string) bool {
	for _, p := range snap.Projects() {
		if p.Slug == slug {
			return true
		}
	}
	return false
}

// generatedContext joins MEMORY.md and the project's index as written on
// disk, when both can be read and fit the budget together (a project
// without facts has no index file: MEMORY.md alone).
func generatedContext(dir, slug string, b Budget, projectOnly bool) ([]byte, bool) {
	proj, err := ReadPlain(dir, ProjectIndexFile(slug))
	switch {
	case !project.Valid(slug) || errors.Is(err, fs.ErrNotExist):
		proj = nil
	case err != nil:
		return nil, false
	}
	if projectOnly && proj != nil {
		return proj, true
	}
	if projectOnly {
		return nil, false
	}
	global, err := ReadPlain(dir, IndexFile)
	if err != nil || (proj == nil && project.Valid(slug) && bytes.Contains(global, []byte("("+ProjectIndexFile(slug)+")"))) {
		return nil, false // the index names a project file that is not there yet
	}
	text := global
	if proj != nil {
		text = append(append(global, '\n'), proj...)
	}
	if over, _, _ := b.Over(text); over {
		return nil, false
	}
	return text, true
}
