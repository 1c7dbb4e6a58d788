// Package txn is the write transaction: the only code that writes memory
// files. The memory commands, the MCP server, review, import, undo,
// extraction and compaction all write through it; none of them takes the
// write lock, checks the repository, settles the indexes or commits by
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
//     vocabulary (package commitmsg). The commit is screened for secrets
//     by gitstore.
//
// Folder.NewStore is the only constructor of an index.Store that writes
// indexes in production code: one budget for every writer.
package txn

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memoryd/memoryd/internal/backoff"
	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// ErrBusy means the transaction could not begin: another writer holds the
// lock past the wait, or a git operation of the user's is under way.
// Nothing was written.
var ErrBusy = errors.New("the memory folder is busy")

// Options configure a Folder.
type Options struct {
	Dir      string         // the memory folder
	StateDir string         // its state folder (the write lock)
	Repo     *gitstore.Repo // nil: files are written but not committed
	Budget   index.Budget   // index.max_lines and index.max_bytes
	// Wait is how long Begin waits for the write lock; 0 means 10 s.
	Wait time.Duration
	// Search, when set, is handed the folder as each transaction left it
	// (search.Update), so a search right after a write finds it. The search
	// index is a cache the next search repairs: its failure fails nothing.
	Search func(context.Context, index.Snapshot) error
	// Uses, when set, gives how often agents asked for each fact (package
	// usage): past the budget, the indexes list the most used first
	// (index.Store.SetUsage).
	Uses func() map[string]int
	// Hold, when set, leaves facts out of every index: the gate on the way
	// out (folder.Gate.Holds(folder.RoadIndex)).
	Hold func(*index.Memory) bool
}

// Folder writes one memory folder. It is safe for concurrent use: the
// write lock serializes transactions across goroutines and processes.
type Folder struct{ opts Options }

// New returns the Folder; it touches nothing.
func New(opts Options) *Folder {
	if opts.Wait <= 0 {
		opts.Wait = 10 * time.Second
	}
	return &Folder{opts: opts}
}

// Dir is the memory folder.
func (f *Folder) Dir() string { return f.opts.Dir }

// Repo is the folder's repository, nil when there is none.
func (f *Folder) Repo() *gitstore.Repo { return f.opts.Repo }

// NewStore is a store of the folder that writes its indexes within the
// configured budget. It is the only way production code makes one.
func (f *Folder) NewStore() *index.Store {
	st := index.NewStore(f.opts.Dir)
	st.SetBudget(f.opts.Budget)
	if f.opts.Uses != nil {
		st.SetUsage(f.opts.Uses)
	}
	st.SetHold(f.opts.Hold)
	return st
}

// Snapshot scans the folder without the lock, for a plan made outside a
// transaction (a dry run, a background job's model call).
func (f *Folder) Snapshot() (index.Snapshot, error) {
	return index.Scan(f.opts.Dir)
}

// Tx is one transaction. Only the goroutine that began it may use it.
type Tx struct {
	f       *Folder
	lock    *state.Lock
	store   *index.Store
	touched map[string]bool
}

// Begin starts a transaction for who (named in the lock: "memoryd add").
// The caller must Close it.
func (f *Folder) Begin(ctx context.Context, who string) (*Tx, error) {
	lock, err := f.lock(ctx, who)
	if err != nil {
		return nil, err
	}
	tx := &Tx{f: f, lock: lock, touched: map[string]bool{}}
	if r := f.opts.Repo; r != nil {
		if b, busy := r.Operation(); busy {
			tx.Close()
			return nil, fmt.Errorf("%w: %s; %s", ErrBusy, b.Reason, b.Fix)
		}
	}
	tx.store = f.NewStore()
	if err := tx.store.Scan(); err != nil {
		tx.Close()
		return nil, err
	}
	return tx, nil
}

// lock takes the write lock, waiting up to Options.Wait.
func (f *Folder) lock(ctx context.Context, who string) (*state.Lock, error) {
	deadline := time.Now().Add(f.opts.Wait)
	b := backoff.Backoff{Base: 50 * time.Millisecond, Max: time.Second}
	for {
		l, err := state.TryLock(f.opts.StateDir, state.WriteLock, state.Owner(who))
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
	m, err := index.ReadCurrent(tx.f.opts.Dir, file, base)
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
	if _, err := index.WriteMemory(tx.f.opts.Dir, file, data); err != nil {
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
	if err := index.RemoveMemory(tx.f.opts.Dir, file); err != nil {
		return err
	}
	tx.touched[file] = true
	return nil
}

// Touched marks files changed by other means (a git restore) as the
// transaction's, for Commit.
func (tx *Tx) Touched(files ...string) {
	for _, f := range files {
		tx.touched[f] = true
	}
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
	if s := tx.f.opts.Search; s != nil {
		_ = s(ctx, tx.store.Snapshot())
	}
	r := tx.f.opts.Repo
	if r == nil {
		return res, nil
	}
	dir := tx.f.opts.Dir
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
