//go:build linux || darwin

package search

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/memoryd/memoryd/internal/index"
)

// walkStamps returns the memory files under dir with the stamps of their
// lstat, found as index.Store's walk finds them. The folders are listed
// first, then the files stat-ed relative to their folder's descriptor
// (fstatat, about half the cost of an lstat of the whole path) on a few
// goroutines: at 10,000 files this is most of what every `memoryd search`
// pays before it searches.
func walkStamps(dir string) ([]index.FileStamp, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	var w walker
	defer w.close()
	if err := w.list(fd, dir, ""); err != nil {
		return nil, err
	}
	w.stat()
	return w.found, nil
}

// walker holds the open folders and the files found in them.
type walker struct {
	dirs  []*os.File        // open folders, closed at the end
	found []index.FileStamp // files, stamped by stat
	in    []int             // for each of found, the descriptor of its folder
	names []string          // for each of found, its name in that folder
}

func (w *walker) close() {
	for _, f := range w.dirs {
		f.Close()
	}
}

// list reads the folder open as fd (relDir in the memory folder) and the
// folders under it; w closes fd.
func (w *walker) list(fd int, dir, relDir string) error {
	f := os.NewFile(uintptr(fd), dir)
	w.dirs = append(w.dirs, f)
	ents, err := f.ReadDir(-1)
	if err != nil {
		return err
	}
	w.found = slices.Grow(w.found, len(ents))
	w.in = slices.Grow(w.in, len(ents))
	w.names = slices.Grow(w.names, len(ents))
	for _, d := range ents {
		rel := d.Name()
		if relDir != "" {
			rel = relDir + "/" + rel
		}
		if !keep(rel, d.IsDir()) {
			continue
		}
		if !d.IsDir() {
			w.found = append(w.found, index.FileStamp{File: rel})
			w.in = append(w.in, fd)
			w.names = append(w.names, d.Name())
			continue
		}
		sub, err := unix.Openat(fd, d.Name(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			err = w.list(sub, dir+"/"+d.Name(), rel)
		}
		if err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, fs.ErrNotExist) {
			w.found = append(w.found, index.FileStamp{File: rel + "/"})
			w.in = append(w.in, -1)
			w.names = append(w.names, "")
		}
	}
	return nil
}

// stat stamps every file found, on a few goroutines.
func (w *walker) stat() {
	n := len(w.found)
	workers := max(1, min(runtime.GOMAXPROCS(0), 4, n/1024))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			var st unix.Stat_t
			for i := k * n / workers; i < (k+1)*n/workers; i++ {
				if w.in[i] < 0 || unix.Fstatat(w.in[i], w.names[i], &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue
				}
				w.found[i].Stamp = index.Stamp{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(),
					Ino: uint64(st.Ino), Mode: uint32(st.Mode)}
			}
		})
	}
	wg.Wait()
}
