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
	path := filepath.Join(dir, name)
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		holder, _ := os.ReadFile(path + ".owner")
		h := strings.TrimSpace(string(holder))
		if h == "" {
			h = "unknown process"
		}
		return nil, fmt.Errorf("%w (%s; lock file %s)", ErrLocked, h, path)
	}
	// The holder describes itself in a file beside the lock, read by whoever
	// is refused; it is informational only and may be stale after a crash.
	atomicfile.Write(dir, name+".owner", []byte(owner+"\n"), 0o600)
	return &Lock{fl: fl}, nil
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

// Held reports whether another process holds the lock dir/name now.
func Held(dir, name string) bool {
	l, err := TryLock(dir, name, Owner("probe"))
	if err == nil {
		l.Unlock()
	}
	return errors.Is(err, ErrLocked)
}
