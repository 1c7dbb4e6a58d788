package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CommitTimeout bounds one commit of memoryd's. A commit runs to its end
// even when the caller's context is cancelled (at shutdown, say): once files
// are written, leaving them half-staged helps nobody. No hook runs, so a
// commit of the memory folder takes well under a second; with the
// daemon's 10 s of waiting for a busy repository at shutdown, the sum stays
// within a service manager's 30 s stop timeout.
const CommitTimeout = 15 * time.Second

// Committed is what a commit recorded; the zero value means nothing was
// committed because nothing differed from HEAD.
type Committed struct {
	Hash  string
	Paths []string // memory-folder paths handed to git
	Held  []Held   // files Options.Screen kept out of the commit
}

// Held is a file kept out of a commit, and why.
type Held struct {
	Path, Reason string
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
	paths, held := r.screenPaths(paths)
	if len(paths) == 0 {
		return Committed{Held: held}, nil
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CommitTimeout)
	defer cancel()
	hash, err := r.Commit(cctx, msg, paths)
	if errors.Is(err, ErrNothingToCommit) {
		return Committed{Held: held}, nil
	}
	if err != nil {
		return Committed{Held: held}, err
	}
	return Committed{Hash: hash, Paths: paths, Held: held}, nil
}

// screenPaths splits paths into those to commit and those Options.Screen
// holds back. A path gone from disk (a deletion) is not screened.
func (r *Repo) screenPaths(paths []string) (keep []string, held []Held) {
	if r.screen == nil {
		return paths, nil
	}
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p))); err == nil {
			if why := r.screen(p); why != "" {
				held = append(held, Held{Path: p, Reason: why})
				continue
			}
		}
		keep = append(keep, p)
	}
	if len(held) > 0 {
		r.log.Warn("files kept out of the commit", "files", len(held), "first", held[0].Reason)
	}
	return keep, held
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
