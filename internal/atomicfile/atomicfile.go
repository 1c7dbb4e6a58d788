// Package atomicfile writes files so that a reader, or a crash, never sees a
// half-written file. Every write memoryd makes into a memory folder goes
// through Write.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TempPrefix starts the name of every temporary file Write creates. The name
// is hidden (leading dot), so watchers, the index and commits ignore it; one
// left by a process that died mid-write is removed by Sweep.
const TempPrefix = ".memoryd-tmp-"

// IsTemp reports whether base is the name of one of Write's temporary files.
func IsTemp(base string) bool { return strings.HasPrefix(base, TempPrefix) }

// ErrSymlink is returned when the target of a write is a symbolic link:
// memoryd never writes through a link, which could point out of the folder.
var ErrSymlink = errors.New("refusing to write through a symbolic link")

// Write replaces dir/name with data: a temporary file in dir is written,
// synced and renamed over the target, then dir is synced. It returns
// changed=false, and writes nothing, when the file already holds exactly data.
// name must be a plain file name or a slash-separated path below dir. On error
// the target is untouched and the temporary file is removed.
func Write(dir, name string, data []byte, perm fs.FileMode) (changed bool, err error) {
	return write(dir, name, data, perm, true)
}

// WriteNoSync is Write without the two syncs to disk, for a file whose
// loss or emptying by a crash costs nothing but repeated work (the record
// of what a session was given, read at every prompt): readers still see
// the old bytes or the new, never a mix. A sync costs milliseconds to tens
// of milliseconds on a busy disk, which the prompt hook would pay.
func WriteNoSync(dir, name string, data []byte, perm fs.FileMode) (changed bool, err error) {
	return write(dir, name, data, perm, false)
}

func write(dir, name string, data []byte, perm fs.FileMode, durable bool) (changed bool, err error) {
	if name == "" || filepath.IsAbs(name) || !filepath.IsLocal(filepath.FromSlash(name)) {
		return false, fmt.Errorf("write %q: not a path inside %s", name, dir)
	}
	target := filepath.Join(dir, filepath.FromSlash(name))
	parent := filepath.Dir(target)
	if fi, err := os.Lstat(target); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return false, fmt.Errorf("write %s: %w", target, ErrSymlink)
		}
		if !fi.Mode().IsRegular() {
			return false, fmt.Errorf("write %s: not a regular file", target)
		}
		if fi.Size() == int64(len(data)) {
			if old, err := os.ReadFile(target); err == nil && bytes.Equal(old, data) {
				return false, nil
			}
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("write %s: %w", target, err)
	}

	f, err := createTemp(parent)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", target, err)
	}
	tmp := f.Name()
	defer func() {
		f.Close() // after the rename where it holds the lock; again is harmless
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err == nil {
		err = f.Chmod(perm)
	}
	if err == nil && durable {
		err = f.Sync()
	}
	if err == nil && !holdOpen {
		err = f.Close()
	}
	if err != nil {
		return false, fmt.Errorf("write %s: %w", target, err)
	}
	if err = os.Rename(tmp, target); err != nil {
		return false, fmt.Errorf("write %s: %w", target, err)
	}
	if !durable {
		return true, nil
	}
	if err = syncDir(parent); err != nil {
		return true, fmt.Errorf("write %s: sync folder: %w", target, err)
	}
	return true, nil
}

// Remove deletes dir/name and syncs dir, so the deletion survives a crash.
// Removing a file that does not exist is not an error.
func Remove(dir, name string) error {
	target := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Dir(target))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
