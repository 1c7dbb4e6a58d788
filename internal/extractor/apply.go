package extractor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/transcript"
)

// ErrChangedOnDisk is returned when a file a pass planned to write changed
// (or appeared) while the model was thinking. Nothing was written; the pass
// runs again later against the new content, so a hand edit is never lost.
var ErrChangedOnDisk = errors.New("a memory file changed during extraction")

// ErrInOperation is returned when the repository is in the middle of a
// merge, rebase, cherry-pick or revert, or on a detached HEAD: nothing is
// written until it ends. It is the transaction's refusal (folder.Begin).
var ErrInOperation = folder.ErrInOperation

// marksLock is the lock file, in the state folder, of the read-modify-write
// of the watermarks file across processes (the daemon and `memoryd
// extract`). It is held for a moment only; it is not the write lock.
const marksLock = state.WatermarksFile + ".lock"

// editMarks edits the watermarks file under its lock.
func (x *Extractor) editMarks(edit func(watermarks)) error {
	x.marksMu.Lock()
	defer x.marksMu.Unlock()
	l, err := state.LockWait(x.opts.StateDir, marksLock)
	if err != nil {
		return err
	}
	defer l.Unlock()
	return editMarks(x.opts.StateDir, edit)
}

// advance moves a session's watermark after a pass that wrote nothing.
func (x *Extractor) advance(key string, mark transcript.Watermark) error {
	return x.editMarks(func(m watermarks) { m[key] = mark })
}

// drop forgets a session's watermark.
func (x *Extractor) drop(key string) error {
	return x.editMarks(func(m watermarks) { delete(m, key) })
}

// apply writes the planned changes and commits them through the write
// transaction, then advances the watermark: a pass whose commit failed
// runs again. A dry run goes the same way on a dry-run transaction
// (folder.Folder.BeginDryRun), which records instead of writing, and
// leaves the watermark where it was.
func (x *Extractor) apply(ctx context.Context, res Result, key string, mark transcript.Watermark, dry bool) (Result, error) {
	if len(res.Changes) > 0 {
		if err := x.write(ctx, &res, dry); err != nil {
			res.Changes = nil
			return res, err
		}
	}
	if dry {
		return res, nil // the watermarks are the extractor's, not the folder's
	}
	return res, x.advance(key, mark)
}

// begin begins the pass's transaction: a dry run's (which needs neither
// the lock nor a repository), or the write transaction.
func (x *Extractor) begin(ctx context.Context, dry bool) (*folder.Tx, error) {
	fo := x.opts.Folder
	if dry && fo != nil {
		return fo.BeginDryRun(ctx, x.opts.Who)
	}
	if x.deps.Repo == nil || fo == nil || fo.Repo() == nil {
		return nil, errors.New("no git repository: extraction writes nothing without one")
	}
	tx, err := fo.Begin(ctx, x.opts.Who)
	if errors.Is(err, folder.ErrBusy) {
		// Another writer held the lock, or git stayed busy, past the
		// wait: retry later.
		return nil, fmt.Errorf("%w: %w", gitstore.ErrBusy, err)
	}
	return tx, err // folder.ErrInOperation among the errors
}

// write begins the transaction — only now, after the model answered —
// checks every planned file against the version the plan read before any
// is written, writes the changes and commits them with the indexes.
func (x *Extractor) write(ctx context.Context, res *Result, dry bool) error {
	tx, err := x.begin(ctx, dry)
	if err != nil {
		return err
	}
	defer tx.Close()
	for _, c := range res.Changes {
		if _, err := tx.Check(c.File, c.prev); err != nil {
			return fmt.Errorf("%w: %w", ErrChangedOnDisk, err)
		}
	}
	var written []Change
	for _, c := range res.Changes {
		if same(c) {
			continue
		}
		if err := tx.Write(c.File, c.Data, c.prev); err != nil {
			return err
		}
		written = append(written, c)
	}
	res.Changes = written
	if len(written) == 0 {
		return nil
	}
	done, err := tx.Commit(ctx, commitMessage(res.Source, res.Session, written, res.Tokens))
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	res.Commit = done.Commit
	return nil
}

// same reports whether a change would write the bytes its file already
// holds (the version it was planned on).
func same(c Change) bool {
	if c.prev == "" {
		return false
	}
	return index.Hash(c.Data) == c.prev
}

// commitMessage is "memory: extract from <source> session <id>", a line
// per file, and the trailers: an extraction by a model, and the tokens the
// pass spent ("Tokens: 1234"; git log --format='%(trailers:key=Tokens)'
// lists them).
func commitMessage(source, id string, changes []Change, tokens int) commitmsg.Message {
	var b strings.Builder
	for _, c := range changes {
		verb := map[string]string{"create": "created", "update": "updated", "propose": "proposed for review:", "supersede": "superseded"}[c.Action]
		if c.Action == "supersede" {
			fmt.Fprintf(&b, "%s %s by %s\n", verb, c.File, c.by)
			continue
		}
		if c.Action == "propose" && c.review != "" && c.review != "extract.review" {
			fmt.Fprintf(&b, "%s %s (%s)\n", verb, c.File, c.review)
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", verb, c.File)
	}
	return commitmsg.Message{Subject: fmt.Sprintf("memory: extract from %s session %s", source, id), Body: b.String(),
		Kind: commitmsg.KindExtraction, Writer: commitmsg.Model, Tokens: tokens}
}
