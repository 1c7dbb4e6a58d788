package gitstore

import (
	"context"
	"errors"
	"strings"
	"time"
)

// CommitTimeout bounds one commit of memoryd's. A commit runs to its end
// even when the caller's context is cancelled (at shutdown, say): once files
// are written, leaving them half-staged helps nobody.
const CommitTimeout = time.Minute

// Committed is what a commit recorded; the zero value means nothing was
// committed because nothing differed from HEAD.
type Committed struct {
	Hash  string
	Paths []string // memory-folder paths handed to git
}

// CommitPending commits whatever in the memory folder differs from HEAD,
// among the paths tracked accepts (index.Tracked), with the subject
// message(paths). Nothing pending, or nothing left once git has looked, is
// not an error: it returns the zero Committed.
//
// The commit is detached from ctx's cancellation and bounded by
// CommitTimeout. Errors are those of Changes and Commit; an error wrapping
// ErrBusy means retry later.
func (r *Repo) CommitPending(ctx context.Context, tracked func(rel string) bool, message func(paths []string) string) (Committed, error) {
	changes, err := r.Changes(tracked)
	if err != nil || len(changes) == 0 {
		return Committed{}, err
	}
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.Path
	}
	return r.CommitPaths(ctx, message(paths), paths)
}

// CommitPaths commits paths (relative to the memory folder) with msg, as
// Commit does, detached from ctx's cancellation and bounded by
// CommitTimeout; paths that already match HEAD give the zero Committed and
// no error. msg is cleaned of NUL and other control characters (text from
// a model may reach it): a NUL cannot even be passed to git.
func (r *Repo) CommitPaths(ctx context.Context, msg string, paths []string) (Committed, error) {
	msg = cleanMessage(msg)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CommitTimeout)
	defer cancel()
	hash, err := r.Commit(cctx, msg, paths)
	if errors.Is(err, ErrNothingToCommit) {
		return Committed{}, nil
	}
	if err != nil {
		return Committed{}, err
	}
	return Committed{Hash: hash, Paths: paths}, nil
}

// cleanMessage drops what must not be in a commit message: invalid UTF-8,
// NUL and control characters other than newline and tab.
func cleanMessage(msg string) string {
	msg = strings.ToValidUTF8(msg, "")
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) {
			return -1
		}
		return r
	}, msg)
}
