package gitstore

import (
	"errors"
	"fmt"
	"github.com/memoryd/memoryd/internal/shell"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Kinds of Blocker.
const (
	BlockedByLock      = "lock"       // a git lock file exists (index.lock, HEAD.lock, the branch's)
	BlockedByGit       = "git"        // another git process works on the repository
	BlockedByOperation = "operation"  // a merge, rebase, cherry-pick, revert or am is under way
	BlockedByConflicts = "conflicts"  // the index has unmerged entries
	BlockedByDetached  = "detached"   // HEAD names no branch
	BlockedByRepo      = "repository" // HEAD or the index cannot be read
)

// staleLockAge is how long a lock file must have gone unmodified, with no
// git process running and nobody holding it open, before Busy removes it.
// git holds its locks for well under a second unless a command waits on an
// editor or hashes a large tree, and those are processes /proc shows; a
// minute leaves room for the ones it cannot show, and costs the daemon at
// most a minute's delay before it recovers by itself.
const staleLockAge = time.Minute

// Blocker is what stops memoryd from committing, described for people:
// `memoryd doctor` and status show it, and Busy's error is its String.
type Blocker struct {
	Kind    string        // one of the BlockedBy constants
	Reason  string        // what is going on, one line
	Path    string        // the file concerned (a lock file, a state file of git's, an unmerged path), or ""
	PID     int           // the other git process, for BlockedByGit (and a lock it may hold), else 0
	Command string        // that process's command line, shortened
	Age     time.Duration // for a lock file, how long since it was last modified
	Fix     string        // what the user can do, one line

	stale bool        // a lock file Busy may remove (see Busy)
	lock  fs.FileInfo // that lock file as found, so that only it is removed
}

// String returns the reason and the fix: "index.lock exists … ; if no git
// command is running, remove it: rm '/notes/.git/index.lock'".
func (b Blocker) String() string {
	if b.Fix == "" {
		return b.Reason
	}
	return b.Reason + "; " + b.Fix
}

// Blocker reports what blocks memoryd's commits right now, if anything, in
// the order Busy checks. It changes nothing: a stale lock file is reported
// (its Fix says memoryd removes it before the next commit), not removed.
// Safe for concurrent use.
func (r *Repo) Blocker() (Blocker, bool) { return r.blocker(time.Now()) }

// lockBlocker describes the lock file at path: held by a running git, or
// stale (see Busy), or neither of these provably.
func (r *Repo) lockBlocker(path string, fi fs.FileInfo, procs []gitProc, known bool, now time.Time) Blocker {
	name := r.gitRel(path)
	age := max(now.Sub(fi.ModTime()), 0).Round(time.Second)
	rm := "rm " + shell.Quote(path)
	b := Blocker{Kind: BlockedByLock, Path: path, Age: age, lock: fi}
	if len(procs) > 0 {
		p := procs[0]
		b.PID, b.Command = p.pid, p.command()
		b.Reason = fmt.Sprintf("%s exists (last modified %s ago) and another git command is running in the repository: %s (pid %d)",
			name, age, p.command(), p.pid)
		b.Fix = "wait for it to finish; memoryd commits once it has"
		return b
	}
	if !known {
		b.Reason = fmt.Sprintf("%s exists (another git command is running, or one was killed), last modified %s ago", name, age)
		b.Fix = "if no git command is running on this repository, remove it: " + rm
		return b
	}
	if age < staleLockAge {
		b.Reason = fmt.Sprintf("%s exists (another git command is running, or one was killed), last modified %s ago; no git process is running here", name, age)
		b.Fix = fmt.Sprintf("memoryd removes it once it is %s old and nothing has it open; or, if no git command is running on this repository, remove it: %s", staleLockAge, rm)
		return b
	}
	real := path
	if p, err := filepath.EvalSymlinks(path); err == nil {
		real = p
	}
	if held, _ := lockHeld(real); held {
		b.Reason = fmt.Sprintf("%s exists (last modified %s ago) and a process has it open, though no git process is running here", name, age)
		b.Fix = "find the program that holds it (fuser " + shell.Quote(path) + ") and let it finish"
		return b
	}
	b.stale = true
	b.Reason = fmt.Sprintf("%s is stale: last modified %s ago, no git process is running here and nothing has it open", name, age)
	b.Fix = "memoryd removes it before its next commit; or remove it yourself: " + rm
	return b
}

// removeStale removes the stale lock file b found, unless it has changed
// since, and logs a warning naming it. It reports whether the file is gone.
func (r *Repo) removeStale(b Blocker) bool {
	fi, err := os.Lstat(b.Path)
	if err != nil {
		return true
	}
	if !os.SameFile(fi, b.lock) || !fi.ModTime().Equal(b.lock.ModTime()) || !fi.Mode().IsRegular() {
		return false
	}
	if err := os.Remove(b.Path); errors.Is(err, fs.ErrNotExist) {
		return true // another Repo value, or the user, was quicker
	} else if err != nil {
		r.log.Warn("cannot remove a stale git lock file", "path", b.Path, "err", err)
		return false
	}
	r.log.Warn("removed a stale git lock file: no git process was running and nothing had it open",
		"path", b.Path, "age", b.Age)
	return true
}

// gitRel names a file of the git directories for messages: "index.lock",
// "refs/heads/main.lock".
func (r *Repo) gitRel(path string) string {
	for _, dir := range []string{r.gitDir, r.commonDir} {
		if rel, err := filepath.Rel(dir, path); dir != "" && err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// RefLock reports on the lock file of the ref named ref
// ("refs/remotes/origin/main") the way Busy does on a commit's locks, and
// removes it when it is stale (see Busy): sync's fetch takes that lock, and
// one left by a fetch killed with SIGKILL would make every later fetch
// fail. It returns the Blocker and true while the lock stands.
func (r *Repo) RefLock(ref string) (Blocker, bool) {
	dir := r.gitDir
	if r.commonDir != "" {
		dir = r.commonDir
	}
	path := filepath.Join(dir, filepath.FromSlash(ref)+".lock")
	fi, err := os.Lstat(path)
	if err != nil {
		return Blocker{}, false
	}
	procs, known := r.gitProcesses()
	b := r.lockBlocker(path, fi, procs, known, time.Now())
	if b.stale && r.removeStale(b) {
		return Blocker{}, false
	}
	return b, true
}
