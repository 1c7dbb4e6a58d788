//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// holdOpen: a temporary file stays open, and so locked, until it has been
// renamed, so that Sweep never sees it unlocked before then.
const holdOpen = true

// lock takes an exclusive lock on f, waiting for a Sweep that holds it. The
// kernel drops it when the process dies however it dies, which is how Sweep
// tells an abandoned temporary file from one being written.
func lock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

// tryLock takes the lock without waiting; false when another process holds it.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return false, nil
	}
	return err == nil, err
}
