package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memoryd/memoryd/atomicfile"
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

// entry is one cached file.
type entry struct {
	rel    string
	key    statKey // zero when the file must be read again next time
	readAt int64   // unix ns just before the file was read
	hash   string
	mem    *Memory
	err    error
}

// statKey identifies one version of a file without reading it.
type statKey struct {
	size, mtime, ctime int64
	ino, dev           uint64
	mode               fs.FileMode
}

func keyOf(fi fs.FileInfo) statKey {
	k := statKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	sysStat(&k, fi)
	return k
}

// racyWindow guards against coarse file timestamps: a file changed this
// soon before it was read could change again without its stat changing, so
// Scan reads it again (and parses it again only if its bytes differ).
const racyWindow = 2 * time.Second

func (e *entry) fresh(k statKey) bool {
	return e.key != (statKey{}) && e.key == k && e.readAt-k.mtime >= int64(racyWindow)
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
		s.put(rel, s.load(rel, lst, s.get(rel)))
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

// WriteIndex builds MEMORY.md from the cache and writes it atomically,
// only when its bytes differ from the file on disk.
func (s *Store) WriteIndex() (changed bool, err error) {
	changed, err = atomicfile.Write(s.dir, IndexFile, Build(s.Snapshot()), 0o644)
	if err != nil {
		return changed, fmt.Errorf("write index: %w", err)
	}
	return changed, nil
}

// attributes is what WriteAttributes writes.
const attributes = "# Written by memoryd: merge its generated files line by line; memoryd rebuilds MEMORY.md after a pull.\n" +
	IndexFile + " merge=union\n" + ConflictsFile + " merge=union\n"

// WriteAttributes writes dir/.gitattributes with union merges for MEMORY.md
// and _CONFLICTS.md when the file is missing. An existing file, whatever it
// holds, is never touched.
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

func (s *Store) abs(rel string) string {
	if rel == "" {
		return s.dir
	}
	return filepath.Join(s.dir, filepath.FromSlash(rel))
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

func (s *Store) readConflicts() {
	s.conflicts = 0
	lst, err := os.Lstat(s.abs(ConflictsFile))
	if err != nil || !lst.Mode().IsRegular() {
		return
	}
	if data, _, err := readRegular(s.abs(ConflictsFile), lst, 64<<20); err == nil {
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

// replace makes the entries whose path starts with prefix those of found
// (sorted here), reusing cached entries that are still fresh and reading
// the others in parallel.
func (s *Store) replace(prefix string, found []candidate) {
	slices.SortFunc(found, func(a, b candidate) int { return strings.Compare(a.rel, b.rel) })
	lo, _ := s.search(prefix)
	hi := lo + sort.Search(len(s.entries)-lo, func(i int) bool {
		return !strings.HasPrefix(s.entries[lo+i].rel, prefix)
	})
	old := s.entries[lo:hi]
	next := make([]*entry, len(found))
	var todo []int
	j := 0
	for i, c := range found {
		for j < len(old) && old[j].rel < c.rel {
			j++
		}
		var prev *entry
		if j < len(old) && old[j].rel == c.rel {
			prev = old[j]
		}
		switch {
		case c.err != nil:
			next[i] = &entry{rel: c.rel, err: c.err}
		case prev != nil && prev.fresh(keyOf(c.info)):
			next[i] = prev
		default:
			next[i] = prev
			todo = append(todo, i)
		}
	}
	parallel(len(todo), func(k int) {
		i := todo[k]
		next[i] = s.load(found[i].rel, found[i].info, next[i])
	})
	s.entries = slices.Replace(s.entries, lo, hi, next...)
}

// parallel calls f(0..n-1) on a few goroutines and waits for them.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), 8, (n+31)/32)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// candidate is a memory file (or an unlistable directory) found by walk.
type candidate struct {
	rel  string
	info fs.FileInfo // from lstat
	err  error
}

// walk appends the memory files under relDir to out, descending into
// subdirectories that are not hidden. It never follows a symbolic link.
func (s *Store) walk(relDir string, out *[]candidate) error {
	f, err := os.Open(s.abs(relDir))
	if err != nil {
		return err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return err
	}
	for _, d := range ents {
		rel := d.Name()
		if relDir != "" {
			rel = relDir + "/" + rel
		}
		switch {
		case d.IsDir():
			if IgnoredDir(rel) {
				continue
			}
			if err := s.walk(rel, out); err != nil && !errors.Is(err, fs.ErrNotExist) {
				*out = append(*out, candidate{rel: rel + "/", err: fmt.Errorf("read folder %s: %w", rel, err)})
			}
		case IsMemory(rel):
			info, err := d.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				err = fmt.Errorf("stat %s: %w", rel, err)
			}
			*out = append(*out, candidate{rel: rel, info: info, err: err})
		}
	}
	return nil
}

// load reads and parses rel, whose lstat is lst. prev, the cached entry, is
// reused when the bytes have not changed. load runs on several goroutines
// at once and touches nothing in s but the parse counter.
func (s *Store) load(rel string, lst fs.FileInfo, prev *entry) *entry {
	e := &entry{rel: rel, key: keyOf(lst), readAt: s.now().UnixNano()}
	switch {
	case lst.Mode()&fs.ModeSymlink != 0:
		e.err = &ParseError{rel, 0, "is a symbolic link, which memoryd does not follow"}
		return e
	case !lst.Mode().IsRegular():
		e.err = &ParseError{rel, 0, "is not a regular file"}
		return e
	case lst.Size() > MaxFileSize:
		e.err = &ParseError{rel, 0, fmt.Sprintf("file is %d bytes, more than the limit of %d", lst.Size(), MaxFileSize)}
		return e
	}
	s.reads.Add(1)
	data, fi, err := readRegular(s.abs(rel), lst, MaxFileSize)
	if err != nil {
		e.key = statKey{}
		e.err = fmt.Errorf("read %s: %w", rel, err)
		return e
	}
	e.key = keyOf(fi)
	sum := sha256.Sum256(data)
	e.hash = hex.EncodeToString(sum[:])
	if prev != nil && prev.hash == e.hash {
		e.mem, e.err = prev.mem, prev.err
		return e
	}
	s.parses.Add(1)
	e.mem, e.err = parse(rel, data, e.hash)
	return e
}

var errChanged = errors.New("file changed while it was being read")

// readRegular reads the regular file at name, which lstat described, and
// returns its bytes and fstat. It fails if the path no longer names that
// file (replaced, for instance by a link) or holds more than limit bytes.
func readRegular(name string, lst fs.FileInfo, limit int64) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !os.SameFile(lst, fi) || !fi.Mode().IsRegular() {
		return nil, nil, errChanged
	}
	data := make([]byte, 0, min(max(fi.Size()+1, 512), limit+1))
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, fi, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if int64(len(data)) > limit {
			return nil, nil, fmt.Errorf("more than %d bytes", limit)
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, len(data))
		}
	}
}
