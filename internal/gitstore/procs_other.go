//go:build !linux

package gitstore

// gitProcesses is a no-op outside Linux: there is no /proc to read, and
// macOS's libproc would need cgo. known is false, so Busy relies on git's
// own lock files alone (a commit may then land while a `git pull` is
// between its fetch and its merge, which makes the pull stop and ask to be
// run again), and a stale lock file is reported but never removed.
func (r *Repo) gitProcesses() (procs []gitProc, known bool) { return nil, false }

// lockHeld is a no-op outside Linux; known is false.
func lockHeld(path string) (held, known bool) { return false, false }
