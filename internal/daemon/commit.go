package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/memoryd/memoryd/internal/backoff"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// This file is the loop's commits: when one is due, the commit job, what
// it found held or ignored, and the pause while git is blocked. Only the
// loop's goroutine calls these (see loop).

// pause stops writing while the user's git operation b is under way; the
// loop polls until it is over.
func (l *loop) pause(b gitstore.Blocker, now time.Time) {
	if !l.paused {
		l.log.Info("a git operation is under way; waiting before writing", "reason", b.Reason)
	}
	l.paused = true
	l.status.Git.Paused, l.status.Git.PausedBy = true, b.Reason+"; "+b.Fix
	l.writeStatus(now)
}

// commitDue says when the next commit attempt is due: after the debounce,
// or at the scheduled retry after a busy repository.
func (l *loop) commitDue() (time.Time, bool) {
	if l.d.deps.Git == nil || l.job != jobNone {
		return time.Time{}, false
	}
	at, ok := l.commitDeb.due()
	if !ok {
		return time.Time{}, false
	}
	if l.commitRetry.After(at) {
		at = l.commitRetry
	}
	// A rebuild still to come goes first; the commit follows it.
	if idx, pending := l.indexDeb.due(); pending && idx.After(at) {
		at = idx
	}
	return at, true
}

// startCommit runs the commit job beside the loop.
func (l *loop) startCommit(ctx context.Context, now time.Time) {
	if l.job != jobNone || l.paused || l.d.deps.Git == nil {
		return
	}
	if at, ok := l.indexDeb.due(); ok && at.After(now) {
		return // a rebuild is still coming; the commit follows it
	}
	l.commitDeb.clear()
	l.job = jobCommit
	go func() { l.results <- l.commit(ctx) }()
}

// commit is the commit job: under the write lock (folder.Folder.CommitPending)
// it commits exactly what differs from HEAD in the memory folder. It runs on its own goroutine
// and touches no loop state.
func (l *loop) commit(ctx context.Context) jobResult {
	res := jobResult{kind: jobCommit}
	start := time.Now()
	message := func(paths []string) string {
		res.summary = gitstore.CommitMessage(paths)
		return gitstore.HandEditsMessage(paths)
	}
	c, err := l.d.deps.Commit.CommitPending(ctx, "memoryd run (commit)", message)
	if errors.Is(err, folder.ErrBusy) {
		err = fmt.Errorf("%w: %w", gitstore.ErrBusy, err) // another writer: retried quietly
	}
	res.hash, res.paths, res.held, res.ignored, res.err, res.took = c.Hash, c.Paths, c.Held, c.Ignored, err, time.Since(start)
	return res
}

// finishCommit records a commit job's result: churn on success, a retry with
// backoff when the repository was busy or the commit failed.
func (l *loop) finishCommit(r jobResult, now time.Time) {
	if r.err != nil {
		l.commitFails++
		wait := backoff.Delay(l.commitFails, commitRetryBase, commitRetryMax)
		l.commitRetry = now.Add(wait)
		l.commitDeb.touch(now)
		if l.commitFails == 1 || !errors.Is(r.err, gitstore.ErrBusy) {
			l.log.Warn("commit postponed", "err", r.err, "retry_in", wait)
		}
		l.status.Git.Problem = r.err.Error()
		return
	}
	if l.commitFails > 0 {
		l.log.Info("commit recovered")
	}
	l.commitFails, l.commitRetry = 0, time.Time{}
	l.status.Git.Problem = ""
	l.noteHeld(r.held)
	l.noteIgnored(r.ignored)
	l.status.Git.LastCheckAt = now
	// After the folder changed: the daemon's commit, or one a command
	// made (memoryd add), which this commit found nothing left of.
	l.afterCommitSync(now)
	if len(r.paths) == 0 {
		return
	}
	n := 0
	for _, p := range r.paths {
		if index.IsMemory(p) {
			n++
		}
	}
	l.status.Git.LastCommit, l.status.Git.LastCommitAt = r.hash, now
	l.log.Info(fmt.Sprintf("committed %s: %s (%s, %s)", plural(len(r.paths), "file", "files"), r.summary, short(r.hash), took(r.took)))
	l.addChurn(n)
}

// flushCommit commits at shutdown, waiting a little while the repository is
// busy. It gives up after shutdownCommit and says so: the changes stay on
// disk and are committed at the next start.
func (l *loop) flushCommit() {
	deadline := time.Now().Add(shutdownCommit)
	for n := 1; ; n++ {
		r := l.commit(context.Background())
		if r.err == nil || !errors.Is(r.err, gitstore.ErrBusy) || time.Now().After(deadline) {
			l.finishCommit(r, time.Now())
			if r.err != nil {
				l.log.Warn("changes left uncommitted at shutdown; they will be committed at the next start", "err", r.err)
			}
			return
		}
		time.Sleep(backoff.Delay(n, 100*time.Millisecond, time.Second))
	}
}

// noteIgnored records the new memory files git ignores, for status, and
// logs once when the set changes.
func (l *loop) noteIgnored(ignored []gitstore.IgnoredFile) {
	now := make([]string, len(ignored))
	for i, f := range ignored {
		now[i] = f.Path + " (" + f.Rule + ")"
	}
	if len(now) > 0 && !slices.Equal(now, l.status.Git.Ignored) {
		l.log.Warn("git ignores memory files: they are never committed", "files", len(now), "first", now[0])
	}
	l.status.Git.Ignored, l.status.Git.IgnoreFix, l.status.Git.IgnoredIndex = now, "", ""
	for i, f := range ignored {
		l.status.Git.IgnoreFix = f.Fix
		// A person may keep some facts out of git on purpose; a rule that
		// also catches memoryd's own index keeps the whole folder out.
		if index.IsIndex(f.Path) {
			l.status.Git.IgnoredIndex = now[i]
		}
	}
}

// noteHeld records the files the last commit kept out (a secret in them),
// for status, and logs each once when it starts being held.
func (l *loop) noteHeld(held []gitstore.Held) {
	was := make(map[string]bool, len(l.status.Git.Held))
	for _, h := range l.status.Git.Held {
		was[h] = true
	}
	l.status.Git.Held = l.status.Git.Held[:0]
	for _, h := range held {
		if !was[h.Reason] {
			l.log.Warn("file kept out of the commit", "reason", h.Reason)
		}
		l.status.Git.Held = append(l.status.Git.Held, h.Reason)
	}
}
