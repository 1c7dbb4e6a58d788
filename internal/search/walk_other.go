//go:build !linux && !darwin

package search

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memoryd/memoryd/internal/index"
)

// walkStamps appends the memory files under dir, and the stamps of their
// lstat, to out, finding them as index.Store's walk does. Without change
// times and inodes here, a stamp is size, modification time and mode.
func walkStamps(dir string) ([]index.FileStamp, error) {
	var out []index.FileStamp
	err := walkDir(dir, "", &out)
	return out, err
}

func walkDir(dir, relDir string, out *[]index.FileStamp) error {
	ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(relDir)))
	if err != nil {
		return err
	}
	for _, d := range ents {
		rel := d.Name()
		if relDir != "" {
			rel = relDir + "/" + rel
		}
		switch {
		case !keep(rel, d.IsDir()):
		case d.IsDir():
			if err := walkDir(dir, rel, out); err != nil && !errors.Is(err, fs.ErrNotExist) {
				*out = append(*out, index.FileStamp{File: rel + "/"})
			}
		default:
			s := index.FileStamp{File: rel}
			if fi, err := d.Info(); err == nil {
				s.Stamp = index.Stamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode())}
			}
			*out = append(*out, s)
		}
	}
	return nil
}
