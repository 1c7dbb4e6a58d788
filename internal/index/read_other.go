//go:build !linux && !darwin

package index

import (
	"io"
	"io/fs"
	"os"
)

// keyOf identifies a file version by size, modification time and mode where
// inodes and change times are not at hand.
func keyOf(fi fs.FileInfo) statKey {
	return statKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}

// readFile reads the regular file name, at most limit bytes, and returns
// the key of the version it read; errTooBig (with the key) without reading
// a file over limit. It checks the file is regular after opening it.
func readFile(name string, limit int64) ([]byte, statKey, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, statKey{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, statKey{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, statKey{}, errNotRegular
	}
	key := keyOf(fi)
	if key.size > limit {
		return nil, key, errTooBig
	}
	data := make([]byte, key.size)
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, statKey{}, err
	}
	return data[:n], key, nil
}

// readHead reads at most n bytes from the start of the regular file name.
func readHead(name string, n int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return headOf(f, n)
}
