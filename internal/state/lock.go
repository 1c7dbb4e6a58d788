package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// ErrLocked is returned by TryLock when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held cross-process lock (flock) on a file in the state folder.
// The file is never deleted: deleting a lock file lets two processes each
// lock a different inode.
type Lock struct{ fl *flock.Flock }

// TryLock takes the lock dir/name without waiting. The holder writes owner
// (for example "pid 123, memoryd run") into the file; when the lock is held,
// the returned error wraps ErrLocked and quotes the holder's text.
func TryLock(dir, name, owner string) (*Lock, error) {
	if err := Ensure(dir); err != nil {
		return nil, err
	}
	fl, ok, err := tryFlock(dir, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, lockedBy(dir, name)
	}
	noteOwner(dir, name, owner)
	return &Lock{fl: fl}, nil
}

// tryFlock locks dir/name without waiting, creating the file (not the
// folder) if it is missing; ok is false when another holder has it.
func tryFlock(dir, name string) (fl *flock.Flock, ok bool, err error) {
	path := filepath.Join(dir, name)
	fl = flock.New(path, flock.SetPermissions(0o600))
	ok, err = fl.TryLock()
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	return fl, ok, nil
}

// lockedBy is the error for the lock dir/name held by another process,
// quoting what the holder wrote about itself.
func lockedBy(dir, name string) error {
	h := readOwner(dir, name)
	if h == "" {
		h = "unknown process"
	}
	return fmt.Errorf("%w (%s; lock file %s)", ErrLocked, h, filepath.Join(dir, name))
}

// writeOwner writes the holder's description beside the lock dir/name,
// read by whoever is refused; it is informational only and may be stale
// after a crash.
func writeOwner(dir, name, owner string) error {
	_, err := atomicfile.Write(dir, name+".owner", []byte(owner+"\n"), 0o600)
	return err
}

// noteOwner is writeOwner for a short lock (TryLock): the holder's
// description written over the last holder's, in place — no new file, no
// sync, since a hook takes such a lock on every prompt and a new file
// costs a millisecond on some disks. Only the lock's holder writes it; a
// process refused meanwhile may read a torn line, which only it shows.
func noteOwner(dir, name, owner string) error {
	f, err := os.OpenFile(filepath.Join(dir, name+".owner"), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	data := []byte(owner + "\n")
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	return errors.Join(err, f.Close())
}

// readOwner is what the holder of dir/name wrote about itself, "" if
// nothing.
func readOwner(dir, name string) string {
	holder, _ := os.ReadFile(filepath.Join(dir, name+".owner"))
	return strings.TrimSpace(string(holder))
}

// Unlock releases the lock.
func (l *Lock) Unlock() error { return l.fl.Unlock() }

// LockWait takes the lock dir/name, waiting for another holder to release
// it. For short critical sections only (a read-modify-write of a state file).
func LockWait(dir, name string) (*Lock, error) {
	if err := Ensure(dir); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(dir, name), flock.SetPermissions(0o600))
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return &Lock{fl: fl}, nil
}

// Held reports whether another process holds the lock dir/name now. It
// probes without writing an owner and creates no folder: a missing state
// folder holds no lock.
func Held(dir, name string) bool {
	fl, ok, err := tryFlock(dir, name)
	if err != nil {
		return false
	}
	if ok {
		fl.Unlock()
	}
	return !ok
}
