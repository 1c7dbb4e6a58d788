//go:build !linux && !darwin

package search

import "io/fs"

// stampOf has no change time or inode here: size, modification time and
// mode only.
func stampOf(fi fs.FileInfo) stamp {
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}
