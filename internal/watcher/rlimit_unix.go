//go:build unix

package watcher

import (
	"fmt"
	"syscall"
)

// OpenFileLimit returns this process's limit on open files (RLIMIT_NOFILE),
// soft and hard. The Go runtime raises the soft limit to the hard one at
// start (on macOS capped by kern.maxfilesperproc), so soft is what the
// process can actually use; under launchd both are what the plist sets
// (install.LaunchdOpenFiles). The daemon logs it at start, since a watcher
// on kqueue needs one open file per watched entry (KqueueFiles). Any
// goroutine may call it.
func OpenFileLimit() (soft, hard uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, fmt.Errorf("open file limit: %w", err)
	}
	return uint64(r.Cur), uint64(r.Max), nil
}
