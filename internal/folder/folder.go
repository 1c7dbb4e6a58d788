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
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memoryd/memoryd/internal/backoff"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/verdicts"
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
	gate     *Gate         // what may leave; the indexes leave out what it holds
	verdicts *verdicts.Set // the detectors' clean verdicts (SaveVerdicts, KeepVerdicts)
}

// Dir is the memory folder.
func (f *Folder) Dir() string { return f.dir }

// StateDir is the folder's state folder.
func (f *Folder) StateDir() string { return f.stateDir }

// Gate is the folder's gate on the way out: every road that gives its
// facts to an agent, a model or a remote asks it.
func (f *Folder) Gate() *Gate { return f.gate }

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
	st.SetVerdicts(f.verdicts)
	if f.uses != nil {
		st.SetUsage(f.uses)
	}
	if f.gate != nil {
		st.SetHold(f.gate.Holds(RoadIndex))
	}
	return st
}

// Snapshot scans the folder without the lock, for a plan made outside a
// transaction (a dry run, a background job's model call).
func (f *Folder) Snapshot() (index.Snapshot, error) {
	st := index.NewStore(f.dir)
	st.SetVerdicts(f.verdicts)
	if err := st.Scan(); err != nil {
		return index.Snapshot{}, err
	}
	f.saveVerdicts(false)
	return st.Snapshot(), nil
}

// SaveVerdicts saves, for the next process, the texts the detectors found
// clean (package verdicts), after a store from NewStore scanned the whole
// folder and settled its indexes (its hold and index lines checked every
// fact): the verdicts of texts gone from the folder are dropped. Tx.Close
// calls it; a command that settles a store of its own calls it when done.
// A failure costs the next process only the work, so it is not an error
// of the command.
func (f *Folder) SaveVerdicts() { f.saveVerdicts(true) }

// KeepVerdicts saves the verdicts a reader's gate added (a search's or a
// recall's facts screened clean), keeping the others; nothing when it
// added none.
func (f *Folder) KeepVerdicts() { f.saveVerdicts(false) }

// saveVerdicts saves the verdicts; settled says every current fact went
// through the index's hold and line, so that their checks' verdicts of
// texts gone can be dropped.
func (f *Folder) saveVerdicts(settled bool) {
	if settled {
		_ = f.verdicts.Save(verdicts.IndexLine, verdicts.Planted)
		return
	}
	_ = f.verdicts.Save()
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
	var err error
	werr := retry(ctx, busyWait, 500*time.Millisecond, func() bool {
		if op, in := r.Operation(); in {
			err = fmt.Errorf("%w: %s; %s", ErrInOperation, op.Reason, op.Fix)
			return true
		}
		err = r.Busy()
		return err == nil
	})
	if errors.Is(werr, errGaveUp) {
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	return cmp.Or(werr, err)
}

// lock takes the write lock, waiting up to Options.Wait.
func (f *Folder) lock(ctx context.Context, who string) (*state.Lock, error) {
	var l *state.Lock
	var err error
	werr := retry(ctx, f.wait, time.Second, func() bool {
		l, err = state.TryLock(f.stateDir, state.WriteLock, state.Owner(who))
		return !errors.Is(err, state.ErrLocked)
	})
	switch {
	case errors.Is(werr, errGaveUp):
		return nil, fmt.Errorf("%w: %w", ErrBusy, err)
	case werr != nil:
		return nil, werr
	}
	return l, err
}

// errGaveUp is retry's answer when the time was up.
var errGaveUp = errors.New("gave up waiting")

// retry calls try until it reports done, waiting with jittered backoff (50
// ms growing to maxWait) between calls. It returns nil once try is done,
// errGaveUp when the next wait would end past within from now, or ctx's
// error; try keeps its own result.
func retry(ctx context.Context, within, maxWait time.Duration, try func() (done bool)) error {
	deadline := time.Now().Add(within)
	b := backoff.Backoff{Base: 50 * time.Millisecond, Max: maxWait}
	for !try() {
		wait := b.Next()
		if time.Now().Add(wait).After(deadline) {
			return errGaveUp
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return nil
}
