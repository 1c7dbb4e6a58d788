//go:build !unix

package watcher

import "errors"

// OpenFileLimit returns this process's limit on open files; there is no
// such limit to read on this system, so it returns an error.
func OpenFileLimit() (soft, hard uint64, err error) {
	return 0, 0, errors.New("open file limit: not known on this system")
}
