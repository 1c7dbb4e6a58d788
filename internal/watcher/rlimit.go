package watcher

import (
	"os"
	"path/filepath"
)

// KqueueFiles returns how many files a Watcher of dir keeps open where
// fsnotify uses kqueue (macOS, the BSDs): one for every watched folder and
// one for every entry in it, hidden ones included, since kqueue can only
// watch what it holds open. Watched folders are dir and, unless flat, every
// non-hidden folder below it, as Run watches them. On Linux inotify needs
// one watch per folder instead (WatchLimit); the count is the same on every
// system, so it can be checked anywhere. A folder that can not be read
// counts for itself alone.
func KqueueFiles(dir string, flat bool) int {
	n := 1 // dir itself
	var walk func(d string)
	walk = func(d string) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		n += len(entries) // every entry is opened, sub-folders too
		if flat {
			return
		}
		for _, e := range entries {
			if e.IsDir() && !hidden(e.Name()) {
				walk(filepath.Join(d, e.Name()))
			}
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return 0
	}
	walk(dir)
	return n
}
