package extractor

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
// merge, rebase, cherry-pick or revert: nothing is written until it ends.
var ErrInOperation = errors.New("repository is in the middle of a merge, rebase, cherry-pick or revert")

// lock takes the folder's write lock, shared by every git writer. A held lock
// is reported as an error wrapping gitstore.ErrBusy, so the caller retries.
func (x *Extractor) lock() (*state.Lock, error) {
	l, err := state.TryLock(x.opts.StateDir, state.WriteLock, x.opts.LockOwner)
	if errors.Is(err, state.ErrLocked) {
		return nil, fmt.Errorf("%w: %w", gitstore.ErrBusy, err)
	}
	return l, err
}

// editMarks edits the watermarks file; the caller holds the write lock.
func (x *Extractor) editMarks(edit func(watermarks)) error {
	x.marksMu.Lock()
	defer x.marksMu.Unlock()
	return editMarks(x.opts.StateDir, edit)
}

// advance moves a session's watermark after a pass that wrote nothing.
func (x *Extractor) advance(key string, mark transcript.Watermark) error {
	l, err := x.lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	return x.editMarks(func(m watermarks) { m[key] = mark })
}

// drop forgets a session's watermark.
func (x *Extractor) drop(key string) error {
	l, err := x.lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	return x.editMarks(func(m watermarks) { delete(m, key) })
}

// apply writes the planned changes, rebuilds the index and commits, all under
// the write lock, then advances the watermark. Every planned file is checked
// against the state it was planned on before any is written.
func (x *Extractor) apply(ctx context.Context, res Result, key string, mark transcript.Watermark) (Result, error) {
	l, err := x.lock()
	if err != nil {
		return res, err
	}
	defer l.Unlock()
	if len(res.Changes) > 0 {
		if err := x.write(ctx, &res); err != nil {
			res.Changes = nil
			return res, err
		}
	}
	if err := x.editMarks(func(m watermarks) { m[key] = mark }); err != nil {
		return res, err
	}
	return res, nil
}

// write puts the changes into the folder and commits them with MEMORY.md.
func (x *Extractor) write(ctx context.Context, res *Result) error {
	repo := x.deps.Repo
	if repo == nil {
		return errors.New("no git repository: extraction writes nothing without one")
	}
	if repo.InOperation() {
		return ErrInOperation
	}
	if err := repo.Busy(); err != nil {
		return err
	}
	for _, c := range res.Changes {
		if err := x.unchanged(c); err != nil {
			return err
		}
	}
	paths := make([]string, 0, len(res.Changes)+1)
	var written []Change
	for _, c := range res.Changes {
		changed, err := index.WriteMemory(x.opts.MemoryDir, c.File, c.Data)
		if err != nil {
			return err
		}
		if changed {
			written = append(written, c)
			paths = append(paths, c.File)
		}
	}
	res.Changes = written
	if len(written) == 0 {
		return nil
	}
	if err := x.store.Scan(); err != nil {
		return fmt.Errorf("read memory folder: %w", err)
	}
	if _, err := x.store.WriteIndex(); err != nil {
		return err
	}
	// The written files and the indexes they changed (MEMORY.md and the
	// projects' MEMORY.<slug>.md), nothing else pending.
	ours := make(map[string]bool, len(paths))
	for _, p := range paths {
		ours[p] = true
	}
	msg := commitMessage(res.Source, res.Session, written, res.Tokens)
	done, err := repo.CommitPending(ctx, func(rel string) bool { return ours[rel] || index.IsIndex(rel) },
		func([]string) string { return msg })
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	res.Commit = done.Hash
	return nil
}

// unchanged checks that a planned file is as it was when the pass read it:
// absent for a create, the same bytes for an update (index.ReadCurrent).
func (x *Extractor) unchanged(c Change) error {
	if _, err := index.ReadCurrent(x.opts.MemoryDir, c.File, c.prev); err != nil {
		return fmt.Errorf("%w: %w", ErrChangedOnDisk, err)
	}
	return nil
}

// commitMessage is "memory: extract from <source> session <id>", a line
// per file, and last a trailer with the tokens the pass spent
// ("Tokens: 1234"; git log --format='%(trailers:key=Tokens)' lists them).
func commitMessage(source, id string, changes []Change, tokens int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory: extract from %s session %s\n\n", source, id)
	for _, c := range changes {
		verb := map[string]string{"create": "created", "update": "updated", "propose": "proposed for review:"}[c.Action]
		fmt.Fprintf(&b, "%s %s\n", verb, c.File)
	}
	fmt.Fprintf(&b, "\nTokens: %d\n", tokens)
	return b.String()
}
