package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/memoryd/memoryd/atomicfile"
	"github.com/memoryd/memoryd/protocol"
)

// Store caches the parsed memory files of one memory folder, so that after
// the first Scan a change costs one read and parse, and a whole rescan reads
// only the files whose size, modification time, inode or change time moved.
//
// Store is not safe for concurrent use: one goroutine (the daemon's loop)
// owns it. Memories in its snapshots are shared with the cache and must not
// be modified.
//
// Symbolic links are never followed: a symlinked memory file is listed as
// unreadable (so that doctor can point at it) and a symlinked directory is
// skipped. Hidden directories are skipped. A subdirectory that cannot be
// listed is reported as unreadable under its name with a trailing slash.
type Store struct {
	dir       string
	entries   []*entry // memory files and unreadable paths, sorted by rel
	conflicts int

	now    func() time.Time
	reads  atomic.Int64 // files read, for tests
	parses atomic.Int64 // Parse calls, for tests
}

// NewStore returns an empty cache for the memory folder dir. It reads
// nothing until Scan or Refresh.
func NewStore(dir string) *Store {
	return &Store{dir: dir, now: time.Now}
}

// Scan walks the whole folder, subdirectories included, and brings the cache
// up to date: new and changed files are read, vanished ones dropped,
// _CONFLICTS.md counted. On error (the folder cannot be listed) the cache is
// left as it was.
func (s *Store) Scan() error {
	var found []candidate
	if err := s.walk("", &found); err != nil {
		return fmt.Errorf("scan memory folder: %w", err)
	}
	s.replace("", found)
	s.readConflicts()
	return nil
}

// Refresh brings one path up to date after a change event: a memory file is
// read again (parsed again only if its bytes changed) or dropped if gone; a
// directory is scanned; a vanished directory drops everything under it;
// _CONFLICTS.md is counted again; other paths are ignored. "" or "." means
// Scan.
func (s *Store) Refresh(rel string) error {
	if rel == "" || rel == "." {
		return s.Scan()
	}
	rel = path.Clean(rel)
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return fmt.Errorf("refresh %q: not a path inside the memory folder", rel)
	}
	if rel == ConflictsFile {
		s.readConflicts()
		return nil
	}
	if IgnoredDir(rel) {
		return nil
	}
	lst, err := s.lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.replace(rel+"/", nil)
		s.put(rel, nil)
		return nil
	case err != nil:
		return fmt.Errorf("refresh %s: %w", rel, err)
	case lst.IsDir():
		s.put(rel, nil)
		var found []candidate
		if err := s.walk(rel, &found); err != nil && !errors.Is(err, fs.ErrNotExist) {
			found = []candidate{{rel: rel + "/", err: fmt.Errorf("read folder %s: %w", rel, err)}}
		}
		s.replace(rel+"/", found)
		return nil
	}
	s.replace(rel+"/", nil) // it may have been a directory
	if IsMemory(rel) {
		s.put(rel, s.load(rel, lst.Mode().Type(), s.get(rel)))
	}
	return nil
}

// Snapshot returns the cached state: memories and unreadable files sorted by
// File, and the conflict count. The slices are new; the memories are shared.
func (s *Store) Snapshot() Snapshot {
	snap := Snapshot{Conflicts: s.conflicts, Memories: make([]*Memory, 0, len(s.entries))}
	for _, e := range s.entries {
		if e.err != nil {
			snap.Unreadable = append(snap.Unreadable, Unreadable{File: e.rel, Err: e.err})
		} else {
			snap.Memories = append(snap.Memories, e.mem)
		}
	}
	return snap
}

// Written describes MEMORY.md as WriteIndex left it.
type Written struct {
	Changed bool // its bytes changed (and were written)
	Lines   int  // lines, a last line without a newline included
	Bytes   int
}

// WriteIndex builds MEMORY.md from the cache and writes it atomically,
// only when its bytes differ from the file on disk. See the note at the top
// of file.go for who may call it.
func (s *Store) WriteIndex() (Written, error) {
	data := Build(s.Snapshot())
	w := Written{Bytes: len(data), Lines: countLines(data)}
	changed, err := atomicfile.Write(s.dir, IndexFile, data, 0o644)
	if err != nil {
		return w, fmt.Errorf("write index: %w", err)
	}
	w.Changed = changed
	return w, nil
}

// Settle brings the folder's generated files up to date with its memory
// files, as every writer does before it commits: .gitattributes and
// PROTOCOL.md are written when missing (a user's own copy is never
// replaced), the whole folder is scanned, and MEMORY.md is written when its
// bytes change.
func (s *Store) Settle() (Written, error) {
	if _, err := WriteAttributes(s.dir); err != nil {
		return Written{}, err
	}
	if _, err := protocol.Ensure(s.dir); err != nil {
		return Written{}, err
	}
	if err := s.Scan(); err != nil {
		return Written{}, err
	}
	return s.WriteIndex()
}

// attributes is what WriteAttributes writes.
const attributes = "# Written by memoryd: merge its generated files line by line; memoryd rebuilds MEMORY.md after a pull.\n" +
	IndexFile + " merge=union\n" + ConflictsFile + " merge=union\n"

// WriteAttributes writes dir/.gitattributes with union merges for MEMORY.md
// and _CONFLICTS.md when the file is missing. An existing file, whatever it
// holds (or a link), is never touched; only a file created in the moment
// between the check and the atomic write could be replaced.
func WriteAttributes(dir string) (changed bool, err error) {
	if _, err := os.Lstat(filepath.Join(dir, AttributesFile)); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("write %s: %w", AttributesFile, err)
	}
	changed, err = atomicfile.Write(dir, AttributesFile, []byte(attributes), 0o644)
	if err != nil {
		return changed, fmt.Errorf("write %s: %w", AttributesFile, err)
	}
	return changed, nil
}

// abs returns the path of rel, a clean relative path (or "").
func (s *Store) abs(rel string) string {
	if rel == "" {
		return s.dir
	}
	return s.dir + string(filepath.Separator) + filepath.FromSlash(rel)
}

// lstat stats rel without following a link in it: a parent that is a link
// or not a directory makes rel not exist.
func (s *Store) lstat(rel string) (fs.FileInfo, error) {
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		fi, err := os.Lstat(s.abs(rel[:i]))
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, fs.ErrNotExist
		}
	}
	return os.Lstat(s.abs(rel))
}

// readConflicts counts the sections of _CONFLICTS.md; a missing or
// unreadable file (or a link) counts none.
func (s *Store) readConflicts() {
	s.conflicts = 0
	if data, _, err := readFile(s.abs(ConflictsFile), 64<<20); err == nil {
		s.conflicts = CountConflicts(data)
	}
}

// search returns the index of rel in s.entries, or where it would go.
func (s *Store) search(rel string) (int, bool) {
	return slices.BinarySearchFunc(s.entries, rel, func(e *entry, rel string) int {
		return strings.Compare(e.rel, rel)
	})
}

func (s *Store) get(rel string) *entry {
	if i, ok := s.search(rel); ok {
		return s.entries[i]
	}
	return nil
}

// put stores e under rel, or drops rel when e is nil.
func (s *Store) put(rel string, e *entry) {
	i, ok := s.search(rel)
	switch {
	case ok && e != nil:
		s.entries[i] = e
	case ok:
		s.entries = slices.Delete(s.entries, i, i+1)
	case e != nil:
		s.entries = slices.Insert(s.entries, i, e)
	}
}
