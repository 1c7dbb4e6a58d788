package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// Who writes what in a memory folder.
//
// Memory files are written and removed only through WriteMemory and
// RemoveMemory, by a job (compaction, extraction, the memory commands) that
// holds the folder's write lock (state.WriteLock) and has checked with
// ReadCurrent, under that lock, that each file is still the version its plan
// was made from.
//
// MEMORY.md is written only by Store.WriteIndex (through Settle or
// directly): by the daemon's loop goroutine without the write lock — the
// index is a pure function of the files, so two writers racing write the
// same bytes for the same files and the later one wins with the newer
// files — and by a job under the write lock, right before it commits
// MEMORY.md with the files it changed.

// ErrChanged means a memory file is no longer the version a plan was made
// from: it was edited, removed, or appeared. Nothing was written.
var ErrChanged = errors.New("changed since it was read")

// ChangedError says how a file changed; it matches ErrChanged.
type ChangedError struct {
	File string
	How  string // "gone", "appeared" or "changed"
}

func (e *ChangedError) Error() string { return e.File + ": " + e.How + " since it was read" }

// Is makes a *ChangedError match ErrChanged.
func (e *ChangedError) Is(target error) bool { return target == ErrChanged }

// ReadCurrent re-reads the memory file rel of dir safely — no symbolic link
// anywhere on its path, a regular file of at most MaxFileSize bytes — and
// checks that it is still the version seen: hash is the Memory.Hash of that
// version, or "" when the file was absent. It returns the file parsed anew,
// or nil when it is still absent.
//
// Errors: a *ChangedError (matching ErrChanged) when the file is gone,
// appeared or holds other bytes; a *ParseError when it can no
// longer be parsed; another error when it cannot be read.
func ReadCurrent(dir, rel, hash string) (*Memory, error) {
	data, err := ReadPlain(dir, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", rel, err)
	case data == nil:
		data = []byte{} // an empty file is not an absent one
	}
	return CurrentOf(rel, data, hash)
}

// CurrentOf is ReadCurrent of the file rel holding data (nil: absent).
func CurrentOf(rel string, data []byte, hash string) (*Memory, error) {
	switch {
	case data == nil && hash == "":
		return nil, nil
	case data == nil:
		return nil, &ChangedError{rel, "gone"}
	case hash == "":
		return nil, &ChangedError{rel, "appeared"}
	}
	m, err := Parse(rel, data)
	if err != nil {
		return nil, err
	}
	if m.Hash != hash {
		return nil, &ChangedError{rel, "changed"}
	}
	return m, nil
}

// ReadPlain reads dir/rel, refusing a symbolic link anywhere on the way and
// anything that is not a regular file of at most MaxFileSize bytes.
func ReadPlain(dir, rel string) ([]byte, error) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, fmt.Errorf("%q is not a path inside the memory folder", rel)
	}
	p := dir
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			return nil, err
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, errors.New("a symbolic link is on its path")
		case i < len(parts)-1 && !fi.IsDir():
			return nil, fs.ErrNotExist
		}
	}
	// readFile opens without following a link (where it can) and checks
	// the file it opened, so a swap after the Lstat is caught too.
	data, _, err := readFile(p, MaxFileSize)
	switch {
	case errors.Is(err, errTooBig):
		return nil, errors.New("larger than the file size limit")
	case errors.Is(err, errNotRegular):
		return nil, errors.New("not a regular file")
	}
	return data, err
}

// WriteMemory writes a memory file atomically (see atomicfile.Write) and
// reports whether its bytes changed. Call it under the write lock, after
// ReadCurrent.
func WriteMemory(dir, rel string, data []byte) (changed bool, err error) {
	if !IsMemory(rel) {
		return false, fmt.Errorf("write %s: not a memory file name", rel)
	}
	if InInbox(rel) {
		// The inbox comes and goes with its proposals (git keeps no
		// empty folder).
		if err := os.MkdirAll(filepath.Join(dir, InboxDir), 0o755); err != nil {
			return false, fmt.Errorf("write %s: %w", rel, err)
		}
	}
	changed, err = atomicfile.Write(dir, rel, data, 0o644)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", rel, err)
	}
	return changed, nil
}

// RemoveMemory removes a memory file; one already gone is not an error.
// Call it under the write lock, after ReadCurrent.
func RemoveMemory(dir, rel string) error {
	if !IsMemory(rel) {
		return fmt.Errorf("remove %s: not a memory file name", rel)
	}
	if err := atomicfile.Remove(dir, rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	return nil
}
