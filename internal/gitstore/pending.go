package gitstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/secrets"
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
	// Ignored are the new memory files git's ignore rules exclude: no
	// commit takes them (see Changes).
	Ignored []IgnoredFile
	// Redacted counts the secrets replaced by secrets.Redacted in the
	// commit message (see CommitPaths).
	Redacted int
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
	changes, ignored, err := r.changes(tracked)
	if err != nil || len(changes) == 0 {
		return Committed{Ignored: ignored}, err
	}
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.Path
	}
	c, err := r.CommitPaths(ctx, message(paths), paths)
	c.Ignored = ignored
	return c, err
}

// CommitPaths commits paths (relative to the memory folder) with msg, as
// Commit does, detached from ctx's cancellation and bounded by
// CommitTimeout; paths that already match HEAD give the zero Committed and
// no error. Every commit memoryd makes of its files goes through here.
//
// The files pass Options.Screen (see screenPaths); the message passes the
// secret detector: a secret in it — a reason typed to `memoryd forget`, a
// model's text — is replaced by secrets.Redacted, counted in
// Committed.Redacted and logged (without the secret), and the commit goes
// on. msg is also cleaned of NUL and other control characters (text from a
// model may reach it): a NUL cannot even be passed to git.
func (r *Repo) CommitPaths(ctx context.Context, msg string, paths []string) (Committed, error) {
	msg, redacted := r.screenMessage(msg)
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
	return Committed{Hash: hash, Paths: paths, Held: held, Redacted: redacted}, nil
}

// screenMessage cleans a commit message (cleanMessage) and replaces the
// secrets in it with secrets.Redacted, returning how many it replaced.
func (r *Repo) screenMessage(msg string) (string, int) {
	msg, n := secrets.Redact(cleanMessage(msg))
	if n > 0 {
		r.log.Warn("a secret in the commit message was replaced with "+secrets.Redacted, "secrets", n, "subject", firstLine(msg))
	}
	return msg, n
}

// HeldFiles returns the files that the next commit of the pending changes
// (CommitPending with tracked) would keep out, and why: what `status` and
// `doctor` report. Nothing is logged or committed.
func (r *Repo) HeldFiles(tracked func(rel string) bool) ([]Held, error) {
	if r.screen == nil {
		return nil, nil
	}
	changes, err := r.Changes(tracked)
	if err != nil {
		return nil, err
	}
	var held []Held
	for _, c := range changes {
		if why := r.screenOne(c.Path); why != "" {
			held = append(held, Held{Path: c.Path, Reason: why})
		}
	}
	return held, nil
}

// screenPaths splits paths into those to commit and those Options.Screen
// holds back. A path gone from disk (a deletion) is not screened.
func (r *Repo) screenPaths(paths []string) (keep []string, held []Held) {
	if r.screen == nil {
		return paths, nil
	}
	for _, p := range paths {
		if why := r.screenOne(p); why != "" {
			held = append(held, Held{Path: p, Reason: why})
			continue
		}
		keep = append(keep, p)
	}
	if len(held) > 0 {
		r.log.Warn("files kept out of the commit", "files", len(held), "first", held[0].Reason)
	}
	return keep, held
}

// screenOne asks Options.Screen about p, unless p is gone from disk (a
// deletion commits nothing of the file). Any other Lstat error is the
// screen's to judge: it fails closed.
func (r *Repo) screenOne(p string) string {
	if _, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(p))); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return r.screen(p)
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
