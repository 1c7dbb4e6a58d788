package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// entry is one cached file.
type entry struct {
	rel    string
	key    statKey // zero when the file must be read again next time
	readAt int64   // unix ns just before the file was read
	hash   string
	mem    *Memory
	err    error
}

// statKey identifies one version of a file without reading it: size,
// modification and change times, inode, device and mode.
type statKey struct {
	size, mtime, ctime int64
	ino, dev           uint64
	mode               uint32
}

// racyWindow guards against coarse file timestamps: a file changed this
// soon before it was read could change again without its stat changing, so
// Scan reads it again (and parses it again only if its bytes differ).
const racyWindow = 2 * time.Second

func (e *entry) fresh(k statKey) bool {
	return e.key != (statKey{}) && e.key == k && e.readAt-k.mtime >= int64(racyWindow)
}

// candidate is a memory file (or an unlistable directory) found by walk.
type candidate struct {
	rel string
	d   fs.DirEntry
	err error
}

// replace makes the entries whose path starts with prefix those of found
// (sorted here), reusing cached entries whose stat has not changed and
// reading the others, on a few goroutines.
func (s *Store) replace(prefix string, found []candidate) {
	slices.SortFunc(found, func(a, b candidate) int { return strings.Compare(a.rel, b.rel) })
	lo, _ := s.search(prefix)
	hi := lo + sort.Search(len(s.entries)-lo, func(i int) bool {
		return !strings.HasPrefix(s.entries[lo+i].rel, prefix)
	})
	old := s.entries[lo:hi]
	next := make([]*entry, len(found))
	j := 0
	for i, c := range found {
		for j < len(old) && old[j].rel < c.rel {
			j++
		}
		if j < len(old) && old[j].rel == c.rel {
			next[i] = old[j]
		}
	}
	parallel(len(found), func(i int) {
		next[i] = s.check(found[i], next[i])
	})
	next = slices.DeleteFunc(next, func(e *entry) bool { return e == nil })
	s.entries = slices.Replace(s.entries, lo, hi, next...)
}

// check returns the entry for a file found by walk: prev when its stat has
// not changed, else a fresh load; nil if the file has gone.
func (s *Store) check(c candidate, prev *entry) *entry {
	if c.err != nil {
		return &entry{rel: c.rel, err: c.err}
	}
	if prev != nil && c.d.Type().IsRegular() {
		info, err := c.d.Info() // lstat
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && info.Mode().IsRegular() && prev.fresh(keyOf(info)) {
			return prev
		}
	}
	return s.load(c.rel, c.d.Type(), prev)
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

// walk appends the memory files under relDir to out, descending into
// subdirectories that are not hidden, and notes the project index files at
// the top in indexes (when not nil). It never follows a symbolic link.
func (s *Store) walk(relDir string, out *[]candidate, indexes map[string]bool) error {
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
			if err := s.walk(rel, out, nil); err != nil && !errors.Is(err, fs.ErrNotExist) {
				*out = append(*out, candidate{rel: rel + "/", err: fmt.Errorf("read folder %s: %w", rel, err)})
			}
		case indexes != nil && IsIndex(rel) && rel != IndexFile:
			indexes[rel] = true
		case IsMemory(rel):
			*out = append(*out, candidate{rel: rel, d: d})
		}
	}
	return nil
}

// load reads and parses rel, a file of type typ (from its directory entry
// or lstat). prev, the cached entry, is reused when the bytes have not
// changed. It returns nil if the file has gone. load runs on several
// goroutines at once and touches nothing in s but its counters.
func (s *Store) load(rel string, typ fs.FileMode, prev *entry) *entry {
	e := &entry{rel: rel, readAt: s.now().UnixNano()}
	if err := NameError(rel); err != nil {
		e.err = err // listed as unreadable, never committed
		return e
	}
	switch {
	case typ&fs.ModeSymlink != 0:
		e.err = &ParseError{rel, 0, "is a symbolic link, which memoryd does not follow"}
		return e
	case !typ.IsRegular():
		e.err = &ParseError{rel, 0, "is not a regular file"}
		return e
	}
	data, key, err := readFile(s.abs(rel), MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, errTooBig):
		e.key = key // stat it, do not read it, until it changes
		e.err = &ParseError{rel, 0, fmt.Sprintf("file is %d bytes, more than the limit of %d", key.size, MaxFileSize)}
		return e
	case err != nil:
		e.err = fmt.Errorf("read %s: %w", rel, err)
		return e
	}
	s.reads.Add(1)
	e.key = key
	e.hash = Hash(data)
	if prev != nil && prev.hash == e.hash {
		e.mem, e.err = prev.mem, prev.err
		return e
	}
	s.parses.Add(1)
	// data was read for this alone and is not changed again: the Memory
	// may keep its bytes as its strings, without a copy.
	e.mem, e.err = parse(rel, unsafe.String(unsafe.SliceData(data), len(data)), e.hash, s.verdicts)
	return e
}

var (
	errTooBig     = errors.New("file too large")
	errNotRegular = errors.New("not a regular file")
)
