package search

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/memoryd/memoryd/index"
)

// A fingerprint identifies the state of a memory folder without reading a
// file: a hash of the sorted paths of its memory files (the files
// index.Store reads: top level and subfolders, hidden folders skipped, links
// not followed) with each one's size, modification and change times, inode
// and mode. Any write, rename over, delete or new file changes it — git
// checkouts and pulls included — so an index stored with the fingerprint of
// the folder it was built from is fresh as long as the fingerprint matches.
// Listing and lstat-ing 10,000 files costs a few milliseconds, the price of
// every `memoryd search`.
type fingerprint struct {
	sum   string   // hex sha256
	files []string // the paths, sorted
}

// stamp is what the fingerprint keeps of one file.
type stamp struct {
	size, mtime, ctime int64
	ino                uint64
	mode               uint32
}

// takeFingerprint lists and stats the memory files under dir. A subfolder
// that cannot be listed counts as a path "sub/", as index.Store reports it.
func takeFingerprint(dir string) (fingerprint, error) {
	var files []string
	if err := listMemories(dir, "", &files); err != nil {
		return fingerprint{}, fmt.Errorf("memory folder: %w", err)
	}
	slices.Sort(files)
	stamps := make([]stamp, len(files))
	statAll(dir, files, stamps)
	h := sha256.New()
	buf := make([]byte, 0, 256)
	for i, rel := range files {
		s := stamps[i]
		buf = append(buf[:0], rel...)
		buf = append(buf, 0)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(s.size))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(s.mtime))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(s.ctime))
		buf = binary.LittleEndian.AppendUint64(buf, s.ino)
		buf = binary.LittleEndian.AppendUint32(buf, s.mode)
		h.Write(buf)
	}
	return fingerprint{sum: hex.EncodeToString(h.Sum(nil)), files: files}, nil
}

// listMemories appends the memory files under relDir to out, like
// index.Store's walk.
func listMemories(dir, relDir string, out *[]string) error {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(relDir)))
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
			if index.IgnoredDir(rel) {
				continue
			}
			if err := listMemories(dir, rel, out); err != nil && !errors.Is(err, fs.ErrNotExist) {
				*out = append(*out, rel+"/")
			}
		case index.IsMemory(rel):
			*out = append(*out, rel)
		}
	}
	return nil
}

// statAll fills stamps with an lstat of each file, on a few goroutines. A
// file that cannot be stat-ed (gone since the listing, or a "sub/" entry)
// keeps a zero stamp: its path still counts.
func statAll(dir string, files []string, stamps []stamp) {
	workers := min(runtime.GOMAXPROCS(0), 4, (len(files)+511)/512)
	var wg sync.WaitGroup
	for w := range max(workers, 1) {
		stat := func() {
			for i := w; i < len(files); i += max(workers, 1) {
				if strings.HasSuffix(files[i], "/") {
					continue
				}
				if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(files[i]))); err == nil {
					stamps[i] = stampOf(fi)
				}
			}
		}
		if workers <= 1 {
			stat()
		} else {
			wg.Go(stat)
		}
	}
	wg.Wait()
}

// sameFiles reports whether the memories and unreadable files of a snapshot
// are exactly the files of fp.
func (fp fingerprint) sameFiles(snap index.Snapshot) bool {
	if len(snap.Memories)+len(snap.Unreadable) != len(fp.files) {
		return false
	}
	seen := make(map[string]bool, len(fp.files))
	for _, f := range fp.files {
		seen[f] = true
	}
	for _, m := range snap.Memories {
		if !seen[m.File] {
			return false
		}
	}
	for _, u := range snap.Unreadable {
		if !seen[u.File] {
			return false
		}
	}
	return true
}
