package folder

import (
	"errors"
	"io/fs"

	"github.com/memoryd/memoryd/internal/index"
)

// GeneratedBy is the one rule for the files of a memory folder that
// memoryd derives from the facts or writes when missing (index.Store.Settle),
// and so commits with its own changes and rebuilds rather than merges:
// .gitattributes, PROTOCOL.md, MEMORY.md, and a project index
// MEMORY.<slug>.md whose content says memoryd generated it
// (index.GeneratedIndex; a person's MEMORY.notes.md is not one). content
// gives the file's content (at least its first lines) and is called only
// for a project index; an error matching fs.ErrNotExist (the file is
// absent: memoryd removes the index of a project without facts) counts as
// generated, any other error as not.
func GeneratedBy(rel string, content func() ([]byte, error)) bool {
	switch {
	case rel == index.AttributesFile, rel == index.ProtocolFile, rel == index.IndexFile:
		return true
	case !index.IsIndex(rel):
		return false
	}
	data, err := content()
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && index.GeneratedIndex(rel, data)
}

// Generated is GeneratedBy for the file rel as it is on disk in the memory
// folder dir. Every transaction commits these files with its own.
func Generated(dir, rel string) bool {
	return GeneratedBy(rel, func() ([]byte, error) { return index.ReadIndexHead(dir, rel) })
}
