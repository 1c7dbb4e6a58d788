package gitstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// indexFiles lists the memory folder's files in the index (stage 0, files
// and symlinks) that tracked accepts. split reports a split index, whose
// list is incomplete (see Changes). No index yet means an empty list.
func (r *Repo) indexFiles(tracked func(string) bool) (files map[string]headEntry, split bool, err error) {
	files = make(map[string]headEntry)
	data, err := os.ReadFile(filepath.Join(r.gitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return files, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read index: %w", err)
	}
	prefix := []byte(r.rel + "/")
	if r.rel == "" {
		prefix = nil
	}
	split, err = scanIndex(data, func(e *indexEntry) bool {
		if e.stage != 0 || !bytes.HasPrefix(e.name, prefix) {
			return true
		}
		typ := e.mode & 0o170000
		if typ != 0o100000 && typ != 0o120000 {
			return true // a submodule, or a sparse index's directory
		}
		if rel := string(e.name[len(prefix):]); considered(tracked, rel) {
			files[rel] = headEntry{hash: e.hash, link: typ == 0o120000}
		}
		return true
	})
	if err != nil {
		return nil, false, fmt.Errorf("read index: %w", err)
	}
	return files, split, nil
}

// indexEntry is one entry of a git index file, as scanIndex reads it.
type indexEntry struct {
	name  []byte // valid during the callback only
	mode  uint32 // git's mode: 0100644, 0100755, 0120000 (symlink), 0160000 (submodule)
	hash  plumbing.Hash
	stage int // 0, or 1 to 3 for a conflict
}

// scanIndex calls visit for the entries of a git index file (versions 2 to
// 4, SHA-1), in the file's order (sorted by name), until visit returns
// false. It reports whether the index is split (core.splitIndex: its
// entries are partly in a shared index file, which scanIndex does not read)
// when it gets that far. It reads only what it needs and verifies neither
// the checksum nor the extensions: decoding a 20,000-file index with go-git
// costs ~25 ms, this a fraction of a millisecond. The format is git's
// Documentation/gitformat-index.txt.
func scanIndex(data []byte, visit func(*indexEntry) bool) (split bool, err error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return false, errors.New("index: bad signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return false, fmt.Errorf("index: unsupported version %d", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	const fixed = 62 // stat data (40), object name (20), flags (2)
	off := 12
	var prev []byte // v4: names are compressed against the previous one
	var e indexEntry
	for range count {
		if off+fixed > len(data) {
			return false, errors.New("index: truncated entry")
		}
		flags := binary.BigEndian.Uint16(data[off+60:])
		start := off + fixed
		if flags&0x4000 != 0 && version >= 3 {
			start += 2 // extended flags
		}
		var end int
		if version == 4 {
			strip, n := offsetVarint(data[min(start, len(data)):])
			if n <= 0 || strip > uint64(len(prev)) {
				return false, errors.New("index: bad path prefix")
			}
			start += n
			nul := bytes.IndexByte(data[min(start, len(data)):], 0)
			if nul < 0 {
				return false, errors.New("index: unterminated path")
			}
			e.name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], data[start:start+nul]...)
			prev = e.name
			end = start + nul + 1
		} else {
			nul := bytes.IndexByte(data[min(start, len(data)):], 0)
			if nul < 0 {
				return false, errors.New("index: unterminated path")
			}
			e.name = data[start : start+nul]
			end = off + (start-off+nul+8)&^7 // 1 to 8 NULs pad to a multiple of 8
		}
		e.mode = binary.BigEndian.Uint32(data[off+24:])
		copy(e.hash[:], data[off+40:off+60])
		e.stage = int(flags >> 12 & 3)
		if !visit(&e) {
			return false, nil
		}
		off = end
	}
	// Extensions: a 4-byte signature and a 4-byte size each, then the
	// trailing checksum.
	for off+8 <= len(data)-20 {
		sig := string(data[off : off+4])
		size := binary.BigEndian.Uint32(data[off+4:])
		if sig == "link" {
			return true, nil
		}
		if uint64(size) > uint64(len(data)) {
			break
		}
		off += 8 + int(size)
	}
	return false, nil
}

// offsetVarint decodes git's "offset" varint (varint.c): big-endian 7-bit
// groups, each continuation adding one. It returns the value and the bytes
// used, or n <= 0 when b ends early or the value overflows.
func offsetVarint(b []byte) (v uint64, n int) {
	for i, c := range b {
		if i > 0 {
			if v >= 1<<56 {
				return 0, -1
			}
			v++
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
