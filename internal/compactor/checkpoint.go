package compactor

import (
	"context"
	"errors"
	"fmt"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
)

// This file is the pass's side of the write transaction: the checkpoint
// commit before any change, the settle after, the rollback when a write
// failed, and the commit of what it did.

// settle prepares the folder for its checkpoint (index.Store.Settle, with
// the configured budget): indexes that match the files, and the reserved
// files the daemon writes when missing (.gitattributes, whose union merge
// _CONFLICTS.md needs, and PROTOCOL.md), so that undo restores a complete
// folder. The caller holds the transaction.
func (c *Compactor) settle() error {
	st := c.opts.Folder.NewStore()
	if _, err := st.Settle(); err != nil {
		return fmt.Errorf("compaction: %w", err)
	}
	return nil
}

// checkpoint settles the folder (settle) and commits its pending changes as the checkpoint, or
// returns the last commit that touched the folder when nothing is pending.
// The caller holds the transaction: nobody else writes meanwhile.
func (c *Compactor) checkpoint(ctx context.Context, tx *folder.Tx) (string, error) {
	if tx.DryRun() {
		return "", nil // a dry run settles and commits nothing
	}
	if err := c.settle(); err != nil {
		return "", err
	}
	msg := commitmsg.Message{Subject: commitmsg.CheckpointSubject, Kind: commitmsg.KindCheckpoint, Writer: commitmsg.Person}.String()
	done, err := tx.CommitPending(ctx, func([]string) string { return msg })
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	if done.Hash != "" {
		c.log.Info("checkpoint", "commit", done.Hash, "files", len(done.Paths))
		return done.Hash, nil
	}
	hist, err := c.git.History(1)
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	if len(hist) == 0 {
		return "", errors.New("checkpoint: the memory folder has no commit to return to (are its files ignored by git?)")
	}
	return hist[0].Hash, nil
}

// rollback puts the folder back to the checkpoint after a failed
// compaction commit: the touched files' bytes, the indexes settled again,
// and the index entries git add may have left staged (staged: the index
// files the commit's settle wrote).
func (c *Compactor) rollback(ctx context.Context, a *applier, staged []string, res *Result) error {
	err := a.rollback()
	if err == nil {
		err = c.settle()
	}
	if uerr := c.git.Unstage(ctx, append(append(a.paths(), index.IndexFile), staged...)); uerr != nil {
		err = errors.Join(err, uerr)
	}
	if err != nil {
		c.log.Error("compaction commit failed and the folder could not be put back whole", "err", err)
		return fmt.Errorf("%w: %w", ErrRolledBack, err)
	}
	c.log.Warn("compaction commit failed; the folder is back at the checkpoint", "checkpoint", res.Checkpoint)
	res.Problems = append(res.Problems, "the compaction commit failed, so nothing was changed: the folder is back at checkpoint "+res.Checkpoint)
	res.Applied, res.Merged, res.Superseded, res.Rewrote, res.Flagged = nil, 0, 0, 0, 0
	return ErrRolledBack
}

// finish makes the compaction commit through the transaction, which
// rebuilds the indexes first. It returns the index files that settle
// wrote, for a rollback.
func (c *Compactor) finish(ctx context.Context, tx *folder.Tx, a *applier, res *Result) ([]string, error) {
	if len(a.touched) == 0 {
		return nil, nil
	}
	done, err := tx.Commit(ctx, commitMessage(res))
	if err != nil {
		return done.Written.Paths, fmt.Errorf("compaction commit: %w", err)
	}
	res.Commit = done.Commit
	return nil, nil
}
