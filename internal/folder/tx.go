package folder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// Tx is one transaction. Only the goroutine that began it may use it.
type Tx struct {
	f       *Folder
	lock    *state.Lock
	store   *index.Store
	touched map[string]bool
	settled bool  // Commit settled the indexes from a full scan
	dry     *Plan // a dry run (BeginDryRun): what it would do, instead of doing it
}

// Close ends the transaction, releasing the lock. What was written and not
// committed stays on disk for the daemon to commit. Close twice is safe.
func (tx *Tx) Close() {
	if tx.lock != nil {
		// After Commit's settle every current fact went through the
		// index's hold and line: the verdicts of texts gone can go.
		tx.f.saveVerdicts(tx.settled)
		tx.lock.Unlock()
		tx.lock = nil
	}
}

// Snapshot is the folder as the transaction sees it: scanned at Begin, and
// after Commit as it left it.
func (tx *Tx) Snapshot() index.Snapshot { return tx.store.Snapshot() }

// Check re-checks that file is still the version base names (a content
// hash, Memory.Hash; "" for absent): the one re-check of what a plan
// read. It returns the file parsed anew (nil when absent).
func (tx *Tx) Check(file, base string) (*index.Memory, error) {
	m, err := tx.Current(file, base)
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was written, try again", err)
	}
	return m, nil
}

// Current is index.ReadCurrent of file as the transaction sees it: in a
// dry run, what it recorded for file, else the file on disk. Unlike Check
// its errors are index.ReadCurrent's, unwrapped.
func (tx *Tx) Current(file, base string) (*index.Memory, error) {
	if data, planned := tx.dry.data(file); planned {
		return index.CurrentOf(file, data, base)
	}
	return index.ReadCurrent(tx.f.dir, file, base)
}

// Read reads file (index.ReadPlain) as the transaction sees it: in a dry
// run, what it recorded for file (absent, fs.ErrNotExist, when it recorded
// a removal), else the file on disk.
func (tx *Tx) Read(file string) ([]byte, error) {
	if data, planned := tx.dry.data(file); planned {
		if data == nil {
			return nil, fs.ErrNotExist
		}
		return data, nil
	}
	return index.ReadPlain(tx.f.dir, file)
}

// Write writes data to the memory file file, when it is still the version
// base (see Check).
func (tx *Tx) Write(file string, data []byte, base string) error {
	if _, err := tx.Check(file, base); err != nil {
		return err
	}
	if tx.dry != nil {
		tx.dry.record(file, data)
	} else if _, err := index.WriteMemory(tx.f.dir, file, data); err != nil {
		return err
	}
	tx.touched[file] = true
	return nil
}

// Remove removes the memory file file, when it is still the version base.
func (tx *Tx) Remove(file, base string) error {
	if _, err := tx.Check(file, base); err != nil {
		return err
	}
	if tx.dry != nil {
		tx.dry.record(file, nil)
	} else if err := index.RemoveMemory(tx.f.dir, file); err != nil {
		return err
	}
	tx.touched[file] = true
	return nil
}

// Touched marks files the transaction's caller wrote by other means (the
// compactor's _CONFLICTS.md) as the transaction's, for Commit.
func (tx *Tx) Touched(files ...string) {
	for _, f := range files {
		tx.touched[f] = true
	}
}

// Restore puts file back to a version it had: data, or absent when data is
// nil. Unlike Write it does not re-check the file: the caller decided,
// under the lock, that this version wins (undo after its own conflict
// check; a rollback to the bytes the pass read before it wrote). It is for
// any file of the folder git tracks, not only memory files.
func (tx *Tx) Restore(file string, data []byte) error {
	if tx.dry != nil {
		tx.dry.record(file, data)
		tx.touched[file] = true
		return nil
	}
	dir := tx.f.dir
	var err error
	if data == nil {
		err = atomicfile.Remove(dir, file)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	} else if err = os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(file))), 0o755); err == nil {
		_, err = atomicfile.Write(dir, file, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", file, err)
	}
	tx.touched[file] = true
	return nil
}

// Merged tells the transaction that git brought files into the work tree
// under its lock (a fast-forward to the remote, or to a merge made beside
// the work tree): they are the transaction's for Commit, and its snapshot
// is taken anew, so the indexes and search are settled from the files as
// they arrived.
func (tx *Tx) Merged(files ...string) error {
	for _, f := range files {
		tx.touched[f] = true
	}
	if tx.dry != nil {
		return nil
	}
	return tx.store.Scan()
}

// CommitPending commits the folder's pending changes of others — a
// person's hand edits waiting for the daemon — before the transaction
// changes anything, so that they keep their own commit and author (a
// checkpoint before compaction, hand edits before undo or a sync). message
// nil commits them as hand edits (gitstore.HandEditsMessage). Without a
// repository it commits nothing.
func (tx *Tx) CommitPending(ctx context.Context, message func(paths []string) string) (gitstore.Committed, error) {
	if tx.dry != nil {
		return gitstore.Committed{}, nil // a dry run commits nothing, not even others' edits
	}
	return tx.f.commitPending(ctx, message)
}

// CommitPending is the daemon's commit of the hand edits (Tx.CommitPending
// without a transaction of its own): under the write lock, taken without
// waiting, for who. Another writer holding it: ErrBusy (wrapping
// state.ErrLocked), and the daemon tries again later.
func (f *Folder) CommitPending(ctx context.Context, who string, message func(paths []string) string) (gitstore.Committed, error) {
	l, err := state.TryLock(f.stateDir, state.WriteLock, state.Owner(who))
	if err != nil {
		return gitstore.Committed{}, fmt.Errorf("%w: %w", ErrBusy, err)
	}
	defer l.Unlock()
	return f.commitPending(ctx, message)
}

// commitPending commits what differs from HEAD among the memory folder's
// tracked files (index.Tracked); the caller holds the write lock.
func (f *Folder) commitPending(ctx context.Context, message func(paths []string) string) (gitstore.Committed, error) {
	if f.repo == nil {
		return gitstore.Committed{}, nil
	}
	if message == nil {
		message = gitstore.HandEditsMessage
	}
	return f.repo.CommitPending(ctx, index.Tracked, message)
}

// Result is what Commit did.
type Result struct {
	Commit  string          // "" when there is no repository or nothing differed
	Held    []gitstore.Held // files the secret screen kept out
	Written index.Written   // what settling the indexes wrote
}

// Commit settles the indexes, updates search and commits the files the
// transaction touched with the generated files, with msg. Other pending
// edits (a person's, in another file) are left for the daemon. When the
// files are written but the commit fails, the error says so: the daemon
// commits them later.
func (tx *Tx) Commit(ctx context.Context, msg commitmsg.Message) (Result, error) {
	var res Result
	if tx.dry != nil {
		tx.dry.Message = msg.String()
		return res, nil
	}
	w, err := tx.store.Settle()
	res.Written = w
	if err != nil {
		return res, err
	}
	tx.settled = true
	if s := tx.f.search; s != nil {
		_ = s(ctx, tx.store.Snapshot())
	}
	r := tx.f.repo
	if r == nil {
		return res, nil
	}
	dir := tx.f.dir
	ours := func(rel string) bool { return tx.touched[rel] || Generated(dir, rel) }
	c, err := tx.commitPending(ctx, r, ours, msg)
	res.Commit, res.Held = c.Hash, c.Held
	if err != nil {
		return res, fmt.Errorf("written, but not committed (the daemon commits it later): %w", err)
	}
	return res, nil
}

// busyWait is how long Commit keeps trying while git is busy with a command
// of someone else's (a user's git status, another memoryd starting up):
// such commands last milliseconds, and a person's `memoryd add` should
// not fail for them.
const busyWait = 3 * time.Second

// commitPending commits what ours accepts, trying again with backoff while
// the repository is busy for up to busyWait. A git operation of the user's
// (a merge begun meanwhile) is not waited for.
func (tx *Tx) commitPending(ctx context.Context, r *gitstore.Repo, ours func(string) bool, msg commitmsg.Message) (gitstore.Committed, error) {
	var c gitstore.Committed
	var err error
	_ = retry(ctx, busyWait, 500*time.Millisecond, func() bool {
		c, err = r.CommitPending(ctx, ours, func([]string) string { return msg.String() })
		return !errors.Is(err, gitstore.ErrBusy) || r.InOperation()
	})
	return c, err
}
