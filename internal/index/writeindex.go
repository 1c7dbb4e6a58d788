package index

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/protocol"
)

// Written describes the index files as WriteIndex left them.
type Written struct {
	Changed bool        // an index file was written or removed
	Lines   int         // the most lines of any index file (a last line without a newline counts)
	Bytes   int         // the most bytes of any index file
	Omitted int         // memories the budget left out of their index, over all index files
	Files   []IndexStat // every index file written (or already up to date): MEMORY.md, then the project indexes by name
	Paths   []string    // the index files written or removed, sorted: what to commit
	Kept    []KeptFile  // project index names holding a file memoryd did not generate, left alone, sorted by File
}

// IndexStat describes one index file as WriteIndex left it.
type IndexStat struct {
	File    string // "MEMORY.md" or "MEMORY.<slug>.md"
	Changed bool   // its bytes changed (and were written)
	Lines   int
	Bytes   int
	Omitted int // memories the budget left out of it
}

// Blocked describes, one sentence each (KeptFile.String), the files in Kept
// that stand where a project's index belongs, so that the index is not
// written: what status reports as a problem. A person's file under a name no
// project uses is not listed.
func (w Written) Blocked() []string {
	var out []string
	for _, k := range w.Kept {
		if k.Project != "" {
			out = append(out, k.String())
		}
	}
	return out
}

// WriteIndex builds every index file from the cache within the Store's
// budget (BuildAll) and writes each one atomically, only when its bytes
// differ from the file on disk. Then it removes the stale project indexes:
// files named MEMORY.<slug>.md (IsIndex) whose project has no memory left,
// as Scan and Refresh last saw the folder.
//
// MEMORY.md is always memoryd's. A project index is written or removed only
// when its name is free or holds an index memoryd generated
// (GeneratedIndex); any other file there — a person's MEMORY.notes.md, a
// symbolic link, a folder, a file that cannot be read — is never replaced or
// removed, and is listed in Written.Kept instead (checked again on every
// call, so the list stays current). A project whose index name is taken that
// way gets no index file (it is still listed in MEMORY.md). Only a file
// created or changed in the moment between the check and the atomic write
// or removal could be replaced. Nothing else is ever removed.
//
// On an error writing or removing one file the others are still written;
// the first error is returned with what was done. See the note at the top
// of file.go for who may call it.
func (s *Store) WriteIndex() (Written, error) {
	var w Written
	var errs []error
	keep := map[string]bool{}
	snap := s.listed(s.Snapshot())
	for _, ix := range buildAll(snap, s.budget, s.preference(snap)) {
		if ix.file != IndexFile {
			keep[ix.file] = true
			if why := s.notOurs(ix.file); why != "" {
				slug, _ := ProjectIndexSlug(ix.file)
				w.Kept = append(w.Kept, KeptFile{File: ix.file, Reason: why, Project: slug})
				continue
			}
		}
		st := IndexStat{File: ix.file, Lines: countLines(ix.data), Bytes: len(ix.data), Omitted: ix.omitted}
		changed, err := atomicfile.Write(s.dir, ix.file, ix.data, 0o644)
		if err != nil {
			errs = append(errs, fmt.Errorf("write index %s: %w", ix.file, err))
		}
		st.Changed = changed
		w.add(st)
	}
	stale := make([]string, 0, len(s.indexes))
	for name, present := range s.indexes {
		if present && !keep[name] {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	for _, name := range stale {
		if why := s.notOurs(name); why != "" {
			w.Kept = append(w.Kept, KeptFile{File: name, Reason: why})
			keep[name] = true // still there: checked again next time
			continue
		}
		removed, err := s.removeIndex(name)
		if err != nil {
			errs = append(errs, err)
			keep[name] = true // still there: try again next time
			continue
		}
		if removed {
			w.Changed = true
			w.Paths = append(w.Paths, name)
		}
	}
	s.indexes = keep
	slices.Sort(w.Paths)
	slices.SortFunc(w.Kept, func(a, b KeptFile) int { return strings.Compare(a.File, b.File) })
	if len(errs) > 0 {
		return w, errs[0]
	}
	return w, nil
}

// SetHold makes every index leave out the facts hold returns true for: the
// gate on the way out (folder.Gate.Holds) decides what an agent loads at
// session start. nil holds nothing. A held fact is still in the snapshot,
// search and the folder; only the index files do not list it.
func (s *Store) SetHold(hold func(*Memory) bool) { s.hold = hold }

// listed is snap without the facts the Store's hold function holds.
func (s *Store) listed(snap Snapshot) Snapshot {
	if s.hold == nil {
		return snap
	}
	return snap.Without(s.hold)
}

// Without is s less the memories hold returns true for, for the index
// builders (BuildAll, Context). s is not changed.
func (s Snapshot) Without(hold func(*Memory) bool) Snapshot {
	kept := make([]*Memory, 0, len(s.Memories))
	for _, m := range s.Memories {
		if !hold(m) {
			kept = append(kept, m)
		}
	}
	s.Memories = kept
	return s
}

// SetUsage makes the indexes prefer, past the budget, the facts agents use:
// uses returns each fact's count of searches, reads and recalls by file
// (package usage). It is called only when the choice is made afresh.
func (s *Store) SetUsage(uses func() map[string]int) { s.usage = uses }

// Rechoose makes the next WriteIndex choose what each index lists afresh,
// with the counts as they are now (memoryd rebuild).
func (s *Store) Rechoose() { s.rechoose = true }

// preference is what the indexes of snap prefer past the budget, or nil
// without SetUsage. The choice is made afresh — the facts most used first,
// the counts read now — only when a fact changed since this Store last
// chose (or was first scanned), or after Rechoose. Otherwise the facts the
// index files on disk list come first, so a rescan, a restart or a
// search never changes an index, and an index another machine chose and
// committed is kept as it is until a fact changes: two machines with
// different counts do not rewrite each other's index in turn.
func (s *Store) preference(snap Snapshot) *Preference {
	if s.usage == nil {
		return nil
	}
	fp := factsPrint(snap)
	fresh := s.rechoose || s.seen != 0 && fp != s.seen
	s.seen, s.rechoose = fp, false
	if fresh {
		s.uses = nil // read again, when an index needs them
	}
	p := &Preference{Uses: s.uses, Load: func() map[string]int {
		if s.uses = s.usage(); s.uses == nil {
			s.uses = map[string]int{}
		}
		return s.uses
	}}
	if !fresh {
		files := []string{IndexFile}
		for name, present := range s.indexes {
			if present {
				files = append(files, name)
			}
		}
		p.LoadListed = func() map[string]bool { return s.listedOnDisk(files) }
	}
	return p
}

func (w *Written) add(st IndexStat) {
	w.Files = append(w.Files, st)
	w.Lines, w.Bytes = max(w.Lines, st.Lines), max(w.Bytes, st.Bytes)
	w.Omitted += st.Omitted
	if st.Changed {
		w.Changed = true
		w.Paths = append(w.Paths, st.File)
	}
}

// removeIndex removes the stale project index name, unless it is a folder.
// The caller has checked that it is memoryd's (notOurs).
func (s *Store) removeIndex(name string) (removed bool, err error) {
	fi, err := os.Lstat(s.abs(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("remove stale index %s: %w", name, err)
	case fi.IsDir():
		return false, nil
	}
	if err := atomicfile.Remove(s.dir, name); err != nil {
		return false, fmt.Errorf("remove stale index %s: %w", name, err)
	}
	return true, nil
}

// Settle brings the folder's generated files up to date with its memory
// files, as every writer does before it commits: .gitattributes and
// PROTOCOL.md are written when missing (a user's own copy is never
// replaced), the whole folder is scanned, and the index files are written
// when their bytes change (see WriteIndex). A MEMORY.<slug>.md that memoryd
// did not generate is never replaced or removed: it is listed in
// Written.Kept.
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
const attributes = "# Written by memoryd: merge its generated files line by line; memoryd rebuilds the indexes after a pull.\n" +
	IndexFile + " merge=union\n" + "MEMORY.*.md merge=union\n" + ConflictsFile + " merge=union\n"

// oldAttributes are the exact texts earlier versions of memoryd wrote,
// which WriteAttributes replaces.
var oldAttributes = []string{
	"# Written by memoryd: merge its generated files line by line; memoryd rebuilds MEMORY.md after a pull.\n" +
		IndexFile + " merge=union\n" + ConflictsFile + " merge=union\n",
}

// WriteAttributes writes dir/.gitattributes with union merges for
// MEMORY.md, the project indexes MEMORY.*.md and _CONFLICTS.md when the
// file is missing, or when it holds exactly what an earlier memoryd wrote.
// Any other file (a user's own, or a link) is never touched; only a file
// created or changed in the moment between the check and the atomic write
// could be replaced.
func WriteAttributes(dir string) (changed bool, err error) {
	p := filepath.Join(dir, AttributesFile)
	if _, err := os.Lstat(p); err == nil {
		data, _, err := readFile(p, 4096)
		if err != nil || !slices.ContainsFunc(oldAttributes, func(old string) bool { return bytes.Equal(data, []byte(old)) }) {
			return false, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("write %s: %w", AttributesFile, err)
	}
	changed, err = atomicfile.Write(dir, AttributesFile, []byte(attributes), 0o644)
	if err != nil {
		return changed, fmt.Errorf("write %s: %w", AttributesFile, err)
	}
	return changed, nil
}
