// Package undo takes a compaction back: the memory folder returns to the
// checkpoint commit made before the pass, recorded as a new commit on top
// of history (which is never rewritten).
package undo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/compactor"
	"github.com/memoryd/memoryd/gitstore"
	"github.com/memoryd/memoryd/index"
	"github.com/memoryd/memoryd/state"
)

// Depth is how many of the memory folder's commits undo searches.
const Depth = 1000

// ErrNothingToUndo means the folder already matches the restore point.
var ErrNothingToUndo = errors.New("nothing to undo")

// Options say what to undo and where.
type Options struct {
	Dir      string         // the memory folder
	StateDir string         // its state folder, which holds the write lock
	Repo     *gitstore.Repo // the folder's repository
	// Commit is the compaction or checkpoint to go back before (a hash
	// prefix of at least 4 digits); "" means the most recent one.
	Commit string
	Owner  string // lock owner text; "" gives "memoryd undo"
}

// Result says what Run restored.
type Result struct {
	What   string // the restore point, for people
	Commit string // the new commit
	// Later counts the commits after the undone one that touched the
	// folder; their changes are undone too (they stay in history).
	Later int
}

// Run restores the folder, under the write lock: pending changes are first
// committed (so the state undo replaces stays in history), the folder is
// restored to the target and committed, and MEMORY.md, .gitattributes and
// PROTOCOL.md are settled and committed when the restored checkpoint
// predates them.
//
// Errors: one wrapping state.ErrLocked when another writer holds the lock,
// gitstore.ErrBusy when the repository is busy, ErrNothingToUndo (with a
// Result naming the restore point) when there is nothing to change, and
// an error naming the commit when it is neither a compaction nor a
// checkpoint or is not found.
func Run(ctx context.Context, opts Options) (Result, error) {
	if opts.Owner == "" {
		opts.Owner = "memoryd undo"
	}
	lock, err := state.TryLock(opts.StateDir, state.WriteLock, state.Owner(opts.Owner))
	if err != nil {
		return Result{}, err
	}
	defer lock.Unlock()
	repo := opts.Repo
	if err := repo.Busy(); err != nil {
		return Result{}, err
	}
	hist, err := repo.History(Depth)
	if err != nil {
		return Result{}, err
	}
	t, err := Target(hist, opts.Commit)
	if err != nil {
		return Result{}, err
	}
	pending, err := repo.CommitPending(ctx, index.Tracked, gitstore.CommitMessage)
	if err != nil {
		return Result{}, fmt.Errorf("commit pending changes before undo: %w", err)
	}
	if pending.Hash != "" {
		t.Later++
	}
	res := Result{What: t.What, Later: t.Later}
	res.Commit, err = repo.Restore(ctx, t.Rev, t.Message)
	if errors.Is(err, gitstore.ErrNothingToCommit) {
		return res, ErrNothingToUndo
	}
	if err != nil {
		return res, err
	}
	if _, err := index.NewStore(opts.Dir).Settle(); err != nil {
		return res, err
	}
	if _, err := repo.CommitPending(ctx, index.Tracked, gitstore.CommitMessage); err != nil {
		return res, fmt.Errorf("commit the rebuilt index: %w", err)
	}
	return res, nil
}

// Point is a restore point.
type Point struct {
	Rev     string // for git rev-parse
	What    string // for people
	Message string // the restore commit's message
	Later   int    // commits after the undone one that touched the folder
}

// Target picks the restore point in hist (newest first): with commit "",
// the most recent compaction (its parent, the checkpoint) or checkpoint
// (after a pass that died before its compaction commit); with a commit
// prefix, that compaction's parent or that checkpoint.
func Target(hist []gitstore.Commit, commit string) (Point, error) {
	want := strings.ToLower(commit)
	for i, c := range hist {
		if want != "" && (len(want) < 4 || !strings.HasPrefix(c.Hash, want)) {
			continue
		}
		switch {
		case strings.HasPrefix(c.Subject, compactor.CompactionPrefix):
			return Point{Rev: c.Hash + "^", What: "the checkpoint before compaction " + short(c.Hash),
				Message: "memory: undo compaction " + short(c.Hash), Later: i}, nil
		case c.Subject == compactor.CheckpointSubject:
			return Point{Rev: c.Hash, What: "checkpoint " + short(c.Hash),
				Message: "memory: undo to checkpoint " + short(c.Hash), Later: i}, nil
		case want != "":
			return Point{}, fmt.Errorf("commit %s (%q) is neither a compaction nor a checkpoint; undo restores only those (see 'memoryd history')", short(c.Hash), c.Subject)
		}
	}
	if want != "" {
		return Point{}, fmt.Errorf("commit %q is not among the last %d commits of the memory folder (see 'memoryd history')", commit, Depth)
	}
	return Point{}, errors.New("no compaction to undo: 'memoryd history' lists none")
}

func short(hash string) string { return hash[:min(12, len(hash))] }
