package search

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"

	"github.com/memoryd/memoryd/internal/index"
)

// A fingerprint identifies the state of a memory folder without reading a
// file: a hash of the paths of its memory files (the files index.Store
// reads: top level and subfolders, hidden folders skipped, links not
// followed) with each one's size, modification and change times, inode and
// mode. Any write, rename over, delete or new file changes it — git
// checkouts and pulls included — so an index stored with the fingerprint of
// the folder it was built from is fresh as long as the fingerprint matches.
// Listing and stat-ing 10,000 files is what every `memoryd search` pays
// before it searches.
type fingerprint struct {
	sum   string   // hex
	files []string // the paths, in no particular order
}

// takeFingerprint lists and stats the memory files under dir. A subfolder
// that cannot be listed counts as a path "sub/", as index.Store reports it.
func takeFingerprint(dir string) (fingerprint, error) {
	found, err := walkStamps(dir)
	if err != nil {
		return fingerprint{}, fmt.Errorf("memory folder: %w", err)
	}
	files := make([]string, len(found))
	for i, f := range found {
		files[i] = f.File
	}
	return fingerprint{sum: sumStamps(found), files: files}, nil
}

// sumStamps is the fingerprint of the files found: each one's path and
// stamp hashed alone (FNV-1a, 128 bits) and the hashes added up, so the
// order the files come in does not matter and nothing is sorted. This
// guards against accidents, not against someone crafting files to collide,
// which would only make a search miss an edit.
func sumStamps(found []index.FileStamp) string {
	sum := hashStamps(found)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(found)))
	out = binary.LittleEndian.AppendUint64(out, sum[0])
	out = binary.LittleEndian.AppendUint64(out, sum[1])
	return hex.EncodeToString(out)
}

// hashStamps is the sum of the hashes of found, in two halves.
func hashStamps(found []index.FileStamp) (sum [2]uint64) {
	h := fnv.New128a()
	buf := make([]byte, 0, 256)
	out := make([]byte, 0, 16)
	for _, f := range found {
		buf = append(buf[:0], f.File...)
		buf = append(buf, 0)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(f.Size))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(f.Mtime))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(f.Ctime))
		buf = binary.LittleEndian.AppendUint64(buf, f.Ino)
		buf = binary.LittleEndian.AppendUint32(buf, f.Mode)
		h.Reset()
		h.Write(buf)
		out = h.Sum(out[:0])
		sum[0] += binary.LittleEndian.Uint64(out[:8])
		sum[1] += binary.LittleEndian.Uint64(out[8:])
	}
	return sum
}

// keep reports whether walkStamps lists the directory entry rel (a memory
// file, with its stamp) or descends into it (a folder index.Store reads).
func keep(rel string, isDir bool) bool {
	if isDir {
		return !index.IgnoredDir(rel)
	}
	return index.IsMemory(rel)
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
