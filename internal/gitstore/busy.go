package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// operations are the per-worktree git directory entries that mean a merge,
// rebase, cherry-pick, revert or `git am` is under way, with a reason and
// the way out.
var operations = []struct{ name, reason, fix string }{
	{"MERGE_HEAD", "a merge is in progress",
		"finish the merge (resolve, git add, git commit) or abort it: git merge --abort"},
	{"rebase-merge", "a rebase is in progress",
		"finish the rebase (git rebase --continue) or abort it: git rebase --abort"},
	{"rebase-apply", "a rebase or am is in progress",
		"finish it (git rebase --continue or git am --continue) or abort it (git rebase --abort or git am --abort)"},
	{"CHERRY_PICK_HEAD", "a cherry-pick is in progress",
		"finish it (git cherry-pick --continue) or abort it: git cherry-pick --abort"},
	{"REVERT_HEAD", "a revert is in progress",
		"finish it (git revert --continue) or abort it: git revert --abort"},
}

// Busy reports whether memoryd must not commit now. It returns nil, or an
// error wrapping ErrBusy that says what blocks the commit and how to clear
// it (see Blocker): a git lock file, another git process working on the
// repository, an operation under way (see InOperation), unmerged index
// entries, or a detached HEAD. The answer can change at any moment; Commit
// re-checks and git's locks settle the remaining races.
//
// Busy also clears the one blocker that would otherwise never clear by
// itself: it removes a stale lock file (index.lock, HEAD.lock or the
// branch's ref lock) and logs a warning naming it. A lock file is stale
// when all of these hold:
//
//   - the system can list its processes (Linux; elsewhere a lock is only
//     reported, with the rm command that removes it);
//   - no git process other than memoryd's own works on the repository
//     (see gitProcesses);
//   - no process this user can see has the file open;
//   - it was last modified at least staleLockAge ago.
//
// git removes its lock files itself when it ends, also on SIGINT and
// SIGTERM; only a git killed with SIGKILL (memoryd's own child after a
// commit timeout, the OOM killer, a power loss) leaves one behind, and git's
// advice then is to remove it once no git process runs — which the second
// and third conditions establish. The age covers what /proc cannot show: a
// git just starting, or one run by another user, in another container or
// on another machine sharing the repository. Whose process left the lock
// does not matter: one nobody uses blocks the user's own git as much as
// memoryd, and a record of memoryd's children would not survive the crash
// that leaves such a lock.
func (r *Repo) Busy() error {
	b, blocked := r.blocker(time.Now())
	if blocked && b.stale && r.removeStale(b) {
		b, blocked = r.blocker(time.Now())
	}
	if !blocked {
		r.sweepNextIndex(time.Now())
		return nil
	}
	return fmt.Errorf("%w: %s", ErrBusy, b)
}

// sweepNextIndex removes the temporary index of a partial commit
// (next-index-<pid>.lock) that a git killed with SIGKILL left behind: it
// blocks nothing, but git never looks at it again and it would stay in the
// git directory for good. It goes when it is stale as a lock file would be
// (see Busy); a readdir of the git directory when there is none.
func (r *Repo) sweepNextIndex(now time.Time) {
	left, _ := filepath.Glob(filepath.Join(r.gitDir, "next-index-*.lock"))
	if len(left) == 0 {
		return
	}
	procs, known := r.gitProcesses()
	for _, path := range left {
		if fi, err := os.Lstat(path); err == nil {
			if b := r.lockBlocker(path, fi, procs, known, now); b.stale {
				r.removeStale(b)
			}
		}
	}
}

// InOperation reports whether a git operation of the user's is under way in
// the work tree: a merge, rebase, cherry-pick, revert or `git am`, or a
// detached HEAD (`git checkout <old commit>`, a bisect). While it is,
// memoryd writes nothing into the memory folder: a tracked file changing
// under a running `git pull --rebase` makes it fail, and a generated file
// written into an old commit's tree makes `git checkout main` refuse. A
// mere index.lock does not count.
func (r *Repo) InOperation() bool {
	_, ok := r.Operation()
	return ok
}

// Operation is InOperation with what is under way and how to end it, in
// the words status and doctor show; ok is false when nothing is.
func (r *Repo) Operation() (b Blocker, ok bool) {
	if i, ok := r.operation(); ok {
		op := operations[i]
		return Blocker{Kind: BlockedByOperation, Path: filepath.Join(r.gitDir, op.name), Reason: op.reason, Fix: op.fix}, true
	}
	head, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err == nil && !bytes.HasPrefix(head, []byte("ref: ")) {
		return detachedBlocker, true
	}
	return Blocker{}, false
}

// detachedBlocker is what a detached HEAD blocks, and the way out.
var detachedBlocker = Blocker{Kind: BlockedByDetached,
	Reason: "HEAD is detached (an old commit or no branch is checked out); memoryd writes nothing until a branch is",
	Fix:    "check out the branch memoryd should commit to: git switch <branch>"}

// operation returns the index in operations of the operation under way.
func (r *Repo) operation() (int, bool) {
	for i, op := range operations {
		if exists(filepath.Join(r.gitDir, op.name)) {
			return i, true
		}
	}
	return 0, false
}

// blocker finds the first thing that blocks a commit, in Busy's order.
func (r *Repo) blocker(now time.Time) (Blocker, bool) {
	head, headErr := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	procs, known := r.gitProcesses()
	for _, lock := range r.lockFiles(head) {
		if fi, err := os.Lstat(lock); err == nil {
			return r.lockBlocker(lock, fi, procs, known, now), true
		}
	}
	if len(procs) > 0 {
		p := procs[0]
		return Blocker{Kind: BlockedByGit, PID: p.pid, Command: p.command(),
			Reason: fmt.Sprintf("another git command is running in the repository: %s (pid %d)", p.command(), p.pid),
			Fix:    "wait for it to finish; memoryd commits once it has"}, true
	}
	if i, ok := r.operation(); ok {
		op := operations[i]
		return Blocker{Kind: BlockedByOperation, Path: filepath.Join(r.gitDir, op.name),
			Reason: op.reason, Fix: op.fix}, true
	}
	if headErr != nil {
		return Blocker{Kind: BlockedByRepo, Path: filepath.Join(r.gitDir, "HEAD"),
			Reason: fmt.Sprintf("read HEAD: %v", headErr), Fix: "check the repository with git status"}, true
	}
	if !bytes.HasPrefix(head, []byte("ref: ")) {
		return detachedBlocker, true
	}
	unmerged, err := r.unmerged()
	if err != nil {
		return Blocker{Kind: BlockedByRepo, Path: filepath.Join(r.gitDir, "index"),
			Reason: fmt.Sprintf("read index: %v", err), Fix: "check the repository with git status"}, true
	}
	if unmerged != "" {
		return Blocker{Kind: BlockedByConflicts, Path: unmerged,
			Reason: fmt.Sprintf("unmerged index entries (%s)", unmerged),
			Fix:    "resolve the conflicts and mark them resolved with git add (git status lists them)"}, true
	}
	return Blocker{}, false
}

// lockFiles returns the lock files a commit takes: the index's, HEAD's
// and, when HEAD names a branch, the branch's (in the common git directory
// of a linked worktree).
func (r *Repo) lockFiles(head []byte) []string {
	locks := []string{filepath.Join(r.gitDir, "index.lock"), filepath.Join(r.gitDir, "HEAD.lock")}
	if ref, ok := bytes.CutPrefix(bytes.TrimSpace(head), []byte("ref: ")); ok && bytes.HasPrefix(ref, []byte("refs/heads/")) {
		refs := r.gitDir
		if r.commonDir != "" {
			refs = r.commonDir
		}
		locks = append(locks, filepath.Join(refs, filepath.FromSlash(string(ref))+".lock"))
	}
	return locks
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
