package watcher

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// WatchLimit compares what watching dir costs with the system's limit: the
// folders a Watcher would watch (hidden ones are skipped, as Run does) and
// inotify's max_user_watches, shared by every program of the user. ok is
// false where there is no such limit to read (not Linux).
func WatchLimit(dir string) (folders, limit int, ok bool) {
	if runtime.GOOS != "linux" {
		return 0, 0, false
	}
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0, 0, false
	}
	limit, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			if p != dir && strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			folders++
		}
		return nil
	})
	return folders, limit, limit > 0
}
