// Package undo takes back a commit memoryd made to the memory folder, as a
// new commit on top of history (which is never rewritten).
//
// Two ways, by the kind of commit (Classify):
//
//   - An extraction, an add, replace, edit or forget, a daemon commit of
//     edits, an undo (a redo), any other "memory: " commit: its own files
//     are put back as they were in its parent — rewritten, brought back, or
//     removed when the parent lacked them — and the folder is settled and
//     committed as "memory: undo <hash> (<subject>)". Commits after it
//     keep their changes. MEMORY.md and the other generated files are
//     rebuilt, not reverted.
//   - A compaction goes back to its checkpoint, as before: the whole
//     folder is restored to the compaction's parent ("memory: undo
//     compaction <hash>"), so later changes to other files are undone too
//     (they stay in history, and the result counts them). A checkpoint
//     left by a pass that died is the same: the folder goes back to it.
//
// Either way, when a file the undone commit changed is different now (a
// later commit or an uncommitted edit changed it), undo refuses and names
// the files and the commits, unless Options.Force.
package undo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// Depth is how many of the memory folder's commits undo searches.
const Depth = 1000

// ErrNothingToUndo means there is nothing to change: the errors that wrap
// it say why.
var ErrNothingToUndo = errors.New("nothing to undo")

// Options say what to undo and where.
type Options struct {
	Folder *folder.Folder // the memory folder, written through its transactions; it must have a repository
	// Commit is the commit to take back (a hash prefix of at least 4
	// digits); "" means the most recent one (see Target).
	Commit string
	// Force undoes even when later changes touched the same files; they
	// are replaced (and stay in history).
	Force bool
	Owner string // lock owner text; "" gives "memoryd undo"
}

// Result says what Run did.
type Result struct {
	Undone gitstore.Commit // the commit taken back
	Kind   string          // its kind (KindCompaction, KindExtraction, …)
	What   string          // what was undone, or the restore point, for people
	Commit string          // the new commit
	// Restored says the whole folder went back to a commit (a compaction
	// or a checkpoint); Later then counts the commits after the undone one
	// that touched the folder, whose changes were undone too.
	Restored bool
	Later    int
	Changes  []Change   // the files put back (not for Restored)
	Replaced []Conflict // with Force: the later changes that were replaced
	Held     []gitstore.Held
}

// Change is one file undo put back: "removed", "restored" or "brought
// back".
type Change = change

// Run takes a commit back under the write lock. Pending changes in the
// folder are first committed as the daemon would (so the undo commit holds
// the undo alone and nothing is lost), the files are put back, the folder
// is settled (MEMORY.md, .gitattributes, PROTOCOL.md) and committed.
//
// Errors: one wrapping state.ErrLocked when another writer holds the lock,
// gitstore.ErrBusy when the repository is busy, ErrNoMemorydCommit, one
// wrapping ErrNothingToUndo (saying why) when there is nothing to change, a
// *ConflictError (ErrConflict) when later changes touched the same files
// and Force is not set, and an error naming the commit when it is not found
// or not memoryd's. Nothing is written before those checks pass.
func Run(ctx context.Context, opts Options) (Result, error) {
	if opts.Owner == "" {
		opts.Owner = "memoryd undo"
	}
	tx, err := opts.Folder.Begin(ctx, opts.Owner)
	if err != nil {
		return Result{}, err
	}
	defer tx.Close()
	repo := opts.Folder.Repo()
	hist, err := repo.History(Depth)
	if err != nil {
		return Result{}, err
	}
	pending, err := repo.Changes(index.Tracked)
	if err != nil {
		return Result{}, err
	}
	es := Classify(opts.Folder.Dir(), hist)
	i, err := Target(es, opts.Commit, len(pending) > 0)
	if err != nil {
		return Result{}, err
	}
	u := &undoer{opts: opts, repo: repo, tx: tx, es: es, i: i}
	if restores(es[i].Kind) {
		return u.restore(ctx)
	}
	return u.revert(ctx)
}

// undoer is one Run's work on es[i].
type undoer struct {
	opts Options
	repo *gitstore.Repo
	tx   *folder.Tx
	es   []Entry
	i    int
}

func (u *undoer) entry() Entry { return u.es[u.i] }

// files reads files of the memory folder as commit hash left them and as
// they were before it.
func (u *undoer) files(hash string, files []string) (after, before map[string]gitstore.Version, err error) {
	return u.repo.FilesAt(hash, files, index.MaxFileSize*4)
}

// check refuses, unless Force, when a file the commit changed is not as
// the commit left it; with Force it returns the later changes replaced.
func (u *undoer) check(files []string, after map[string]gitstore.Version) ([]Conflict, error) {
	cs, err := conflicts(u.opts.Folder.Dir(), u.es, u.i, files, after)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	if !u.opts.Force {
		return nil, &ConflictError{Commit: u.entry().Commit, Files: cs}
	}
	return cs, nil
}

// commitPending commits what was pending before undo changes anything.
func (u *undoer) commitPending(ctx context.Context) (bool, error) {
	c, err := u.tx.CommitPending(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("commit pending changes before undo: %w", err)
	}
	return c.Hash != "", nil
}

// revert puts the commit's own files back as they were in its parent.
func (u *undoer) revert(ctx context.Context) (Result, error) {
	e := u.entry()
	res := Result{Undone: e.Commit, Kind: e.Kind, What: gitstore.Short(e.Hash) + " (" + e.Subject + ")"}
	files := own(u.opts.Folder.Dir(), e.Files)
	after, before, err := u.files(e.Hash, files)
	if err != nil {
		return res, err
	}
	if res.Replaced, err = u.check(files, after); err != nil {
		return res, err
	}
	if _, err := u.commitPending(ctx); err != nil {
		return res, err
	}
	res.Changes, err = revert(u.tx, u.opts.Folder.Dir(), files, before)
	if err == nil && len(res.Changes) == 0 {
		return res, fmt.Errorf("%w: the files of %s are already as they were before it", ErrNothingToUndo, res.What)
	}
	if err != nil {
		return res, err
	}
	subject, body, _ := strings.Cut(revertMessage(e.Commit, res.Changes), "\n")
	c, err := u.tx.Commit(ctx, commitmsg.Message{Subject: subject, Body: body, Kind: commitmsg.KindUndo, Writer: commitmsg.Person})
	res.Commit, res.Held = c.Commit, c.Held
	if err != nil {
		return res, fmt.Errorf("undone on disk but not committed (the daemon commits it later): %w", err)
	}
	return res, nil
}

// restore puts the whole folder back to the checkpoint: a compaction's
// parent, or the dangling checkpoint itself.
func (u *undoer) restore(ctx context.Context) (Result, error) {
	e := u.entry()
	res := Result{Undone: e.Commit, Kind: e.Kind, Restored: true, Later: u.i}
	rev, msg := e.Hash, commitmsg.UndoPrefix+"to checkpoint "+gitstore.Short(e.Hash)
	res.What = "checkpoint " + gitstore.Short(e.Hash)
	if e.Kind == KindCompaction {
		rev = e.Hash + "^"
		msg = commitmsg.UndoPrefix + "compaction " + gitstore.Short(e.Hash) + strings.TrimPrefix(e.Subject, commitmsg.CompactionPrefix)
		res.What = "the checkpoint before compaction " + gitstore.Short(e.Hash)
		files := own(u.opts.Folder.Dir(), e.Files)
		after, _, err := u.files(e.Hash, files)
		if err != nil {
			return res, err
		}
		if res.Replaced, err = u.check(files, after); err != nil {
			return res, err
		}
	}
	committed, err := u.commitPending(ctx)
	if err != nil {
		return res, err
	}
	if committed {
		res.Later++
	}
	res.Commit, err = u.repo.Restore(ctx, rev, commitmsg.Message{Subject: msg, Kind: commitmsg.KindUndo, Writer: commitmsg.Person}.String())
	if errors.Is(err, gitstore.ErrNothingToCommit) {
		return res, fmt.Errorf("%w: the memory folder already matches %s", ErrNothingToUndo, res.What)
	}
	if err != nil {
		return res, err
	}
	c, err := u.tx.Commit(ctx, commitmsg.Message{Subject: "memory: rebuild the indexes after undo " + gitstore.Short(res.Commit), Kind: commitmsg.KindUndo, Writer: commitmsg.Person})
	res.Held = c.Held
	if err != nil {
		return res, fmt.Errorf("commit the rebuilt index: %w", err)
	}
	return res, nil
}
