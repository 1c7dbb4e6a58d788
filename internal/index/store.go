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

	"github.com/memoryd/memoryd/internal/verdicts"
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
	budget    Budget
	indexes   map[string]bool // project index files (MEMORY.<slug>.md) on disk, as last seen

	// What the indexes prefer past the budget (see SetUsage, WriteIndex).
	hold     func(*Memory) bool    // facts the indexes leave out (SetHold); nil: none
	usage    func() map[string]int // nil: the plain order, no preference
	uses     map[string]int        // the counts of the last fresh choice
	seen     uint64                // factsPrint when the indexes were last chosen (0: not yet)
	rechoose bool                  // the next WriteIndex chooses afresh

	verdicts *verdicts.Set // the clean verdicts of other processes (SetVerdicts); nil: none

	now    func() time.Time
	reads  atomic.Int64 // files read, for tests
	parses atomic.Int64 // Parse calls, for tests
}

// NewStore returns an empty cache for the memory folder dir, whose indexes
// are written within DefaultBudget (see SetBudget). It reads nothing until
// Scan or Refresh.
func NewStore(dir string) *Store {
	return &Store{dir: dir, now: time.Now, budget: DefaultBudget(), indexes: map[string]bool{}}
}

// SetBudget sets the budget every index file is written within
// (index.max_lines, index.max_bytes). Every writer of one folder must use
// the same budget, or the indexes change with the writer.
func (s *Store) SetBudget(b Budget) { s.budget = b.withDefaults() }

// SetVerdicts makes the store skip the secret detector on an index line
// whose title and description set holds as found clean, and record there
// the lines it finds clean (see package verdicts). The caller saves set.
func (s *Store) SetVerdicts(set *verdicts.Set) { s.verdicts = set }

// Scan walks the whole folder, subdirectories included, and brings the cache
// up to date: new and changed files are read, vanished ones dropped,
// _CONFLICTS.md counted. On error (the folder cannot be listed) the cache is
// left as it was.
func (s *Store) Scan() error {
	var found []candidate
	indexes := map[string]bool{}
	if err := s.walk("", &found, indexes); err != nil {
		return fmt.Errorf("scan memory folder: %w", err)
	}
	s.replace("", found)
	s.readConflicts()
	s.indexes = indexes
	if s.seen == 0 {
		s.seen = factsPrint(s.listed(s.Snapshot())) // the facts as this process found them
	}
	return nil
}

// Refresh brings one path up to date after a change event: a memory file is
// read again (parsed again only if its bytes changed) or dropped if gone; a
// directory is scanned; a vanished directory drops everything under it;
// _CONFLICTS.md is counted again; a project index is noted as present or
// gone (for WriteIndex to remove when stale); other paths are ignored. ""
// or "." means Scan.
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
	if _, ok := ProjectIndexSlug(rel); ok {
		fi, err := os.Lstat(s.abs(rel))
		s.indexes[rel] = err == nil && !fi.IsDir()
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
		if err := s.walk(rel, &found, nil); err != nil && !errors.Is(err, fs.ErrNotExist) {
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
	snap := Snapshot{Conflicts: s.conflicts, Memories: make([]*Memory, 0, len(s.entries)),
		entries: slices.Clone(s.entries)}
	for _, e := range s.entries {
		if e.err != nil {
			snap.Unreadable = append(snap.Unreadable, Unreadable{File: e.rel, Err: e.err})
		} else {
			snap.Memories = append(snap.Memories, e.mem)
		}
	}
	return snap
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
