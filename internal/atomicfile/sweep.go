package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// createTemp creates a temporary file in dir and locks it. Should a Sweep
// remove the file between its creation and the lock, it is made again.
func createTemp(dir string) (*os.File, error) {
	for {
		f, err := os.CreateTemp(dir, TempPrefix+"*")
		if err != nil {
			return nil, err
		}
		// A file system without locks (some network mounts) refuses them to
		// Sweep as well, which then removes nothing: write unlocked.
		if lock(f) != nil || sameFile(f, f.Name()) {
			return f, nil
		}
		f.Close()
	}
}

// Sweep removes the temporary files Write left in dir (not below it) when
// its process died between creating and renaming one — a kill -9, a crash, a
// power cut. A temporary file is locked for as long as it is written, and the
// kernel drops the lock of a dead process, so one Sweep can lock is
// abandoned: Sweep never removes a file another process is still writing.
// It returns the names removed.
func Sweep(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !IsTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		ok, err := sweepOne(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			removed = append(removed, e.Name())
		}
	}
	if len(removed) > 0 {
		if err := syncDir(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

func sweepOne(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // renamed or removed since the listing
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if ok, err := tryLock(f); !ok {
		return false, err
	}
	// The name may have moved on since it was opened: renamed over its
	// target by a Write that has finished, or given to a new temporary file.
	if !sameFile(f, path) {
		return false, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// sameFile reports whether path still names the file f has open.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}
