// Package folder is the memory folder: the only way to open one and the
// only code that writes memory files. Open resolves the folder's real path
// and state folder and opens its repository with the commit secret screen
// always on (screen.go), the one index budget and the search and usage
// hooks; cmd/memoryd and the daemon only call Open. Suitable is the rule
// for a folder that must not be used as one (a home folder, a notes root).
// The memory commands, the MCP server, review, import, undo, extraction,
// compaction and sync all write through a transaction; none of them takes
// the write lock, checks the repository, settles the indexes or commits by
// itself.
//
// A transaction is Begin, then Write/Remove, then Commit (or Close alone to
// give up):
//
//   - Begin takes the write lock (waiting up to Options.Wait for another
//     writer) and refuses while a git operation of the user's is under way
//     (merge, rebase, cherry-pick, revert, am, a detached HEAD): ErrBusy.
//     It scans the folder, so a plan made under the lock sees it as it is.
//   - Write and Remove re-check that the file is still the version the
//     plan read (its content hash, "" for absent), then write atomically.
//     A background job plans without the lock, from Folder.Snapshot, and
//     begins only to apply: a person's or an agent's write never waits
//     for a model.
//   - Commit settles every index with the one configured budget, brings
//     the search index up to the folder, and commits what the transaction
//     wrote and the generated files, with a message from the commit
//     vocabulary (package commitmsg), through the secret screen.
//
// Folder.NewStore is the only constructor of an index.Store that writes
// indexes in production code: one budget for every writer.
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
	"github.com/memoryd/memoryd/internal/backoff"
	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// Begin refuses with one of two errors; nothing was written.
var (
	// ErrBusy: another writer held the write lock past Options.Wait, or git
	// was busy (a lock file, another git process, unmerged entries) past
	// busyWait. Try again later.
	ErrBusy = errors.New("the memory folder is busy")
	// ErrInOperation: a git operation of the user's is under way in the
	// notes repository (a merge, rebase, cherry-pick, revert, am, a
	// detached HEAD); the error says how to end it.
	ErrInOperation = errors.New("a git operation is under way in the notes repository")
)

// Folder is one open memory folder: its real path, its state folder, its
// repository (with the commit secret screen always on), the one index
// budget and the search and usage hooks; and the only way to write it. It is
// safe for concurrent use: the write lock serializes transactions across
// goroutines and processes.
type Folder struct {
	dir      string
	stateDir string
	repo     *gitstore.Repo // nil: files are written but not committed
	repoErr  error          // why repo is nil
	budget   index.Budget
	wait     time.Duration
	search   func(context.Context, index.Snapshot) error
	uses     func() map[string]int
}

// Dir is the memory folder.
func (f *Folder) Dir() string { return f.dir }

// StateDir is the folder's state folder.
func (f *Folder) StateDir() string { return f.stateDir }

// Repo is the folder's repository, nil when there is none (see RepoErr).
func (f *Folder) Repo() *gitstore.Repo { return f.repo }

// RepoErr is why Repo is nil: an error matching gitstore.ErrNoRepo or
// gitstore.ErrNoGit, another failure of git, or "not opened"
// (Options.WithoutRepo).
func (f *Folder) RepoErr() error { return f.repoErr }

// NewStore is a store of the folder that writes its indexes within the
// configured budget. It is the only way production code makes one.
func (f *Folder) NewStore() *index.Store {
	st := index.NewStore(f.dir)
	st.SetBudget(f.budget)
	if f.uses != nil {
		st.SetUsage(f.uses)
	}
	return st
}

// Snapshot scans the folder without the lock, for a plan made outside a
// transaction (a dry run, a background job's model call).
func (f *Folder) Snapshot() (index.Snapshot, error) {
	return index.Scan(f.dir)
}

// Tx is one transaction. Only the goroutine that began it may use it.
type Tx struct {
	f       *Folder
	lock    *state.Lock
	store   *index.Store
	touched map[string]bool
}

// Begin starts a transaction for who (named in the lock: "memoryd add").
// It checks every precondition once, for every writer: the write lock,
// then no git operation of the user's (ErrInOperation), then git not busy
// (ErrBusy; a brief lock of someone else's is waited out). The caller must
// Close it.
func (f *Folder) Begin(ctx context.Context, who string) (*Tx, error) {
	lock, err := f.lock(ctx, who)
	if err != nil {
		return nil, err
	}
	tx := &Tx{f: f, lock: lock, touched: map[string]bool{}}
	if err := f.ready(ctx); err != nil {
		tx.Close()
		return nil, err
	}
	tx.store = f.NewStore()
	if err := tx.store.Scan(); err != nil {
		tx.Close()
		return nil, err
	}
	return tx, nil
}

// ready returns nil when git lets a transaction write: no operation of the
// user's under way, and nothing busy past busyWait (gitstore.Repo.Busy,
// which also clears a stale lock file).
func (f *Folder) ready(ctx context.Context) error {
	r := f.repo
	if r == nil {
		return nil
	}
	deadline := time.Now().Add(busyWait)
	b := backoff.Backoff{Base: 50 * time.Millisecond, Max: 500 * time.Millisecond}
	for {
		if op, in := r.Operation(); in {
			return fmt.Errorf("%w: %s; %s", ErrInOperation, op.Reason, op.Fix)
		}
		err := r.Busy()
		if err == nil {
			return nil
		}
		wait := b.Next()
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("%w: %w", ErrBusy, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// lock takes the write lock, waiting up to Options.Wait.
func (f *Folder) lock(ctx context.Context, who string) (*state.Lock, error) {
	deadline := time.Now().Add(f.wait)
	b := backoff.Backoff{Base: 50 * time.Millisecond, Max: time.Second}
	for {
		l, err := state.TryLock(f.stateDir, state.WriteLock, state.Owner(who))
		if !errors.Is(err, state.ErrLocked) {
			return l, err
		}
		wait := b.Next()
		if time.Now().Add(wait).After(deadline) {
			return nil, fmt.Errorf("%w: %w", ErrBusy, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Close ends the transaction, releasing the lock. What was written and not
// committed stays on disk for the daemon to commit. Close twice is safe.
func (tx *Tx) Close() {
	if tx.lock != nil {
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
	m, err := index.ReadCurrent(tx.f.dir, file, base)
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was written, try again", err)
	}
	return m, nil
}

// Write writes data to the memory file file, when it is still the version
// base (see Check).
func (tx *Tx) Write(file string, data []byte, base string) error {
	if _, err := tx.Check(file, base); err != nil {
		return err
	}
	if _, err := index.WriteMemory(tx.f.dir, file, data); err != nil {
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
	if err := index.RemoveMemory(tx.f.dir, file); err != nil {
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
	return tx.store.Scan()
}

// CommitPending commits the folder's pending changes of others — a
// person's hand edits waiting for the daemon — before the transaction
// changes anything, so that they keep their own commit and author (a
// checkpoint before compaction, hand edits before undo or a sync). message
// nil commits them as hand edits (gitstore.HandEditsMessage). Without a
// repository it commits nothing.
func (tx *Tx) CommitPending(ctx context.Context, message func(paths []string) string) (gitstore.Committed, error) {
	r := tx.f.repo
	if r == nil {
		return gitstore.Committed{}, nil
	}
	if message == nil {
		message = gitstore.HandEditsMessage
	}
	return r.CommitPending(ctx, index.Tracked, message)
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
	w, err := tx.store.Settle()
	res.Written = w
	if err != nil {
		return res, err
	}
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
	deadline := time.Now().Add(busyWait)
	b := backoff.Backoff{Base: 50 * time.Millisecond, Max: 500 * time.Millisecond}
	for {
		c, err := r.CommitPending(ctx, ours, func([]string) string { return msg.String() })
		if !errors.Is(err, gitstore.ErrBusy) || r.InOperation() {
			return c, err
		}
		wait := b.Next()
		if time.Now().Add(wait).After(deadline) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return c, err
		case <-time.After(wait):
		}
	}
}

// Generated reports whether rel, in the memory folder dir, is a file
// memoryd derives from the facts or writes when missing
// (index.Store.Settle): the indexes it generated (index.GeneratedFile; a
// person's MEMORY.notes.md is not one), .gitattributes and PROTOCOL.md.
// Every transaction commits them with its own files.
func Generated(dir, rel string) bool {
	return rel == index.AttributesFile || rel == index.ProtocolFile || index.GeneratedFile(dir, rel)
}
