package watcher

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// step tells the Run loop what to do after one fsnotify event or error.
type step int

const (
	stepContinue step = iota // nothing more
	stepResync               // drop every watch and set them up again now, then Rescan
	stepFail                 // the watcher is broken: Rescan, retry with backoff
)

// errRootGone ends watching when the memory folder itself is removed or
// renamed; the loop keeps retrying until it is back.
var errRootGone = errors.New("memory folder removed or renamed")

// relPath returns name relative to root, with slashes, "." for root itself;
// ok is false for a name outside root.
func relPath(root, name string) (rel string, ok bool) {
	if name == root {
		return ".", true
	}
	rest, found := strings.CutPrefix(name, root+string(filepath.Separator))
	if !found || rest == "" {
		return "", false
	}
	return filepath.ToSlash(rest), true
}

// hidden reports whether a directory entry name is hidden (".git", ".obsidian").
func hidden(base string) bool { return strings.HasPrefix(base, ".") }

// handleError decides what an error from fsnotify means. An overflow means
// events were lost, possibly the creation of a directory that now has no
// watch, so every watch is set up again; any other error restarts the watcher.
func (l *loop) handleError(err error) (step, error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		return stepResync, err
	}
	return stepFail, fmt.Errorf("fsnotify: %w", err)
}

// handleEvent turns one fsnotify event into at most one path event (plus a
// Rescan when the directory tree changed) and keeps the set of watched
// directories in step with the tree. It does only quick local work: an
// lstat, and watching a new directory's subtree.
func (l *loop) handleEvent(ev fsnotify.Event) (step, error) {
	if ev.Op == 0 || ev.Op == fsnotify.Chmod {
		return stepContinue, nil // attributes only (also sent on Linux before a delete)
	}
	rel, ok := relPath(l.root, ev.Name)
	if !ok {
		return stepContinue, nil
	}
	gone := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	if rel == "." {
		if gone {
			return stepFail, errRootGone
		}
		return stepContinue, nil
	}
	if gone && l.dirs[ev.Name] {
		l.forget(ev.Name)
		l.rescan()
	}
	if ev.Has(fsnotify.Create) && !l.flat {
		isDir, err := l.watchNew(ev.Name)
		if err != nil {
			return stepFail, err
		}
		if isDir {
			// Files may have appeared in it before its watch existed.
			l.rescan()
		}
	}
	if l.ignore == nil || !l.ignore(rel) {
		l.out.path(rel)
	}
	return stepContinue, nil
}

// forget drops the watches on dir and every directory below it. It removes
// them from fsnotify explicitly: after a rename inotify keeps watching the
// moved directories under their old names, and fsnotify would keep
// reporting (and, if the directory is watched again at its new name, keep
// using) those stale paths. Errors are expected (the kernel may have dropped
// a watch already) and harmless.
func (l *loop) forget(dir string) {
	prefix := dir + string(filepath.Separator)
	for d := range l.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(l.dirs, d)
			_ = l.fs.Remove(d)
		}
	}
}

// watchNew watches name and the directories below it if name is a directory
// that is neither hidden nor a symbolic link. isDir reports whether it did.
func (l *loop) watchNew(name string) (isDir bool, err error) {
	fi, err := os.Lstat(name)
	if err != nil || !fi.IsDir() || hidden(fi.Name()) {
		return false, nil // gone again, a file, a link, or hidden
	}
	return true, l.addTree(name)
}

// addTree watches dir and, recursively, every non-hidden directory below it.
// The watch is added before the directory is listed, so an entry created
// meanwhile is either listed or reported. Directories that vanish meanwhile
// are skipped; directories we may not read are skipped with a warning.
func (l *loop) addTree(dir string) error {
	if err := l.fs.Add(dir); err != nil {
		return l.addError(dir, err)
	}
	l.dirs[dir] = true
	if l.flat {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return l.addError(dir, err)
	}
	for _, e := range entries {
		if e.IsDir() && !hidden(e.Name()) {
			if err := l.addTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// addError classifies an error from watching or listing dir below the root:
// nil to skip dir, or the error that stops watching.
func (l *loop) addError(dir string, err error) error {
	switch {
	case dir != l.root && errors.Is(err, fs.ErrNotExist):
		return nil
	case dir != l.root && errors.Is(err, fs.ErrPermission):
		l.log.Warn("cannot watch directory; changes in it are seen only on rescan", "dir", dir, "err", err)
		return nil
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("watch %s: %w (inotify watch limit reached; raise fs.inotify.max_user_watches)", dir, err)
	}
	return fmt.Errorf("watch %s: %w", dir, err)
}
