package compactor

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
)

// applier applies validated ops to the folder through the transaction. Every
// op first re-reads the files it acts on and compares their bytes with the
// scan the plan was made from (and the transaction checks again as it
// writes); a file changed in between (a hand edit, or a fact saved through
// memoryd, during the LLM call) makes the op skip, so the change survives.
type applier struct {
	tx      *folder.Tx
	log     *slog.Logger
	delay   time.Duration
	res     *Result
	touched map[string]bool // files written or removed
	// before holds each touched file's bytes before its first change (nil:
	// it did not exist), so that rollback can put the folder back.
	before map[string][]byte
}

// save records rel's bytes before its first change.
func (a *applier) save(rel string) error {
	if _, ok := a.before[rel]; ok {
		return nil
	}
	data, err := a.tx.Read(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return err
	}
	a.before[rel] = data
	return nil
}

// rollback puts every touched file back as it was before the pass: the
// checkpoint's state, since the checkpoint committed everything pending.
// It runs inside the transaction, after its commit failed.
func (a *applier) rollback() error {
	var errs []error
	for _, rel := range a.paths() {
		if err := a.tx.Restore(rel, a.before[rel]); err != nil {
			errs = append(errs, fmt.Errorf("put back %s: %w", rel, err))
		}
	}
	return errors.Join(errs...)
}

// errSkip is an op that must not be applied; its text is the reason.
type errSkip string

func (e errSkip) Error() string { return string(e) }

func skipf(format string, args ...any) error { return errSkip(fmt.Sprintf(format, args...)) }

// applyAll applies ops in order. It stops at the first write that fails
// (the disk is unlikely to accept the next one) and returns that error;
// what was applied before it stays applied and is committed.
//
// Supersessions go last, so that a successor a merge writes exists.
func (a *applier) applyAll(ops []*planned) error {
	ordered := make([]*planned, 0, len(ops))
	for _, p := range ops {
		if p.Op.Op != OpSupersede {
			ordered = append(ordered, p)
		}
	}
	for _, p := range ops {
		if p.Op.Op == OpSupersede {
			ordered = append(ordered, p)
		}
	}
	for _, p := range ordered {
		if a.delay > 0 {
			time.Sleep(a.delay)
		}
		err := a.apply(p)
		var skip errSkip
		switch {
		case err == nil:
			a.res.count(p.Op)
		case errors.As(err, &skip):
			a.res.Skipped = append(a.res.Skipped, Skipped{Op: p.Op, Reason: string(skip)})
			a.log.Warn("op skipped", "op", clip(p.Op.String(), 200), "reason", string(skip))
		default:
			return fmt.Errorf("compaction: apply %s: %w", clip(p.Op.String(), 80), err)
		}
	}
	return nil
}

func (a *applier) apply(p *planned) error {
	switch {
	case p.dedupe:
		return a.dedupe(p)
	case p.Op.Op == OpMerge:
		return a.merge(p)
	case p.Op.Op == OpSupersede:
		return a.supersede(p)
	case p.Op.Op == OpRewrite:
		return a.rewrite(p)
	case p.Op.Op == OpFlag:
		return a.flag(p)
	}
	return skipf("unknown op %q", p.Op.Op)
}

// stamp records the compaction in a file it writes: metadata.source and
// metadata.updated.
func (a *applier) stamp(m *index.Memory) {
	now := time.Now()
	m.Sources = append(m.Sources, index.Source{Agent: "compaction", At: now.UTC().Format(time.RFC3339)})
	m.Updated = now.Format(time.DateOnly)
}

// paths returns the touched files, sorted.
func (a *applier) paths() []string {
	out := make([]string, 0, len(a.touched)+1)
	for f := range a.touched {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// current re-reads the file m was scanned from (folder.Tx.Current) and
// returns it parsed anew, or an errSkip when it is gone, changed, or no
// longer a plain file.
func (a *applier) current(m *index.Memory) (*index.Memory, error) {
	cur, err := a.tx.Current(m.File, m.Hash)
	var ce *index.ChangedError
	switch {
	case errors.As(err, &ce):
		return nil, skipf("%s: %s since the plan was made", m.File, ce.How)
	case err != nil:
		return nil, skipf("%v", err)
	}
	return cur, nil
}

// write writes rel through the transaction when it is still the version
// base (a content hash, "" for absent); a change since makes it an errSkip.
func (a *applier) write(rel string, data []byte, base string) error {
	if err := a.save(rel); err != nil {
		return err
	}
	if err := a.tx.Write(rel, data, base); err != nil {
		return changed(err)
	}
	a.touched[rel] = true
	return nil
}

// remove removes m's file through the transaction when it is still the
// version scanned; a change since makes it an errSkip.
func (a *applier) remove(m *index.Memory) error {
	if err := a.save(m.File); err != nil {
		return err
	}
	if err := a.tx.Remove(m.File, m.Hash); err != nil {
		return changed(err)
	}
	a.touched[m.File] = true
	return nil
}

// changed makes a file changed since it was read (the transaction's
// re-check) an errSkip; other errors stay errors.
func changed(err error) error {
	var ce *index.ChangedError
	if errors.As(err, &ce) {
		return skipf("%s: %s since the plan was made", ce.File, ce.How)
	}
	return err
}

// dedupe keeps mems[0] as it is and removes the others that are unchanged.
func (a *applier) dedupe(p *planned) error {
	if _, err := a.current(p.mems[0]); err != nil {
		return err
	}
	removed := 0
	for _, m := range p.mems[1:] {
		if _, err := a.current(m); err != nil {
			a.log.Warn("duplicate kept", "reason", err)
			continue
		}
		var skip errSkip
		if err := a.remove(m); errors.As(err, &skip) {
			a.log.Warn("duplicate kept", "reason", err)
			continue
		} else if err != nil {
			return err
		}
		removed++
	}
	if removed == 0 {
		return skipf("every duplicate changed since the plan was made")
	}
	return nil
}

// merge writes the target, then removes the sources that are not the
// target. Every source is checked before anything is written; a source
// edited between the write and its removal is kept.
func (a *applier) merge(p *planned) error {
	srcs := make([]*index.Memory, len(p.mems))
	for i, m := range p.mems {
		cur, err := a.current(m)
		if err != nil {
			return err
		}
		srcs[i] = cur
	}
	base, targetHash := srcs[0], ""
	if i := slices.Index(p.Files, p.target); i >= 0 {
		base, targetHash = srcs[i], srcs[i].Hash
	} else if _, err := a.tx.Current(p.target, ""); err != nil {
		return skipf("%s: the merge target appeared since the plan was made", p.target)
	}
	// A copy of the base keeps its frontmatter; a title belongs to the
	// file it was written for.
	m := *base
	if base.File != p.target {
		m.File, m.Title = p.target, ""
	}
	m.Name, m.Type, m.Description, m.Body = p.Into.Name, p.Into.Type, p.Into.Description, p.Into.Body
	// It keeps what a person or another tool wrote in any of its files.
	m.Absorb(srcs...)
	// The merged fact keeps where every one of its files came from.
	m.Sources = nil
	for _, src := range srcs {
		m.Sources = append(m.Sources, src.Sources...)
	}
	m.Cites = mergedCites(&m, srcs)
	a.stamp(&m)
	data := m.Format()
	if len(data) > index.MaxFileSize {
		return skipf("%s: the merged file would exceed the size limit", p.target)
	}
	if err := a.write(p.target, data, targetHash); err != nil {
		return err
	}
	for _, src := range p.mems {
		if src.File == p.target {
			continue
		}
		if _, err := a.current(src); err != nil {
			a.log.Warn("merged file kept", "reason", err)
			continue
		}
		var skip errSkip
		if err := a.remove(src); errors.As(err, &skip) {
			a.log.Warn("merged file kept", "reason", err)
		} else if err != nil {
			return err
		}
	}
	return nil
}

// rewrite replaces a file's description (when given) and body, keeping its
// other frontmatter as it is.
func (a *applier) rewrite(p *planned) error {
	cur, err := a.current(p.mems[0])
	if err != nil {
		return err
	}
	m := *cur
	if p.Description != "" {
		m.Description = p.Description
	}
	m.Body = p.Body
	a.stamp(&m)
	data := m.Format()
	if len(data) > index.MaxFileSize {
		return skipf("%s: the rewritten file would exceed the size limit", m.File)
	}
	return a.write(m.File, data, cur.Hash)
}

// mergedCites is every file the merged facts cite, once, in order: the
// merged fact rests on all of them, each with the version its fact
// recorded (so a merge neither hides nor confirms a change). Cites of a
// fact of another project than m's are relative to another root and left
// out.
func mergedCites(m *index.Memory, srcs []*index.Memory) []index.Cite {
	var out []index.Cite
	seen := map[string]bool{}
	for _, src := range srcs {
		if src.Scope() != m.Scope() {
			continue
		}
		for _, c := range src.Cites {
			if !seen[c.String()] {
				seen[c.String()] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// supersede marks the old fact superseded by its successor, which must be
// there: metadata.superseded_by and superseded_at, the rest of the file as
// it is. Nothing is removed.
func (a *applier) supersede(p *planned) error {
	cur, err := a.current(p.mems[0])
	if err != nil {
		return err
	}
	if _, err := a.tx.Read(p.Op.By); err != nil {
		return skipf("%s: its successor %s is not there", cur.File, p.Op.By)
	}
	m := *cur
	m.SupersededBy, m.SupersededAt = p.Op.By, time.Now().Format(time.DateOnly)
	m.Sources = append(m.Sources, index.Source{Agent: "compaction", At: time.Now().UTC().Format(time.RFC3339)})
	return a.write(m.File, m.Format(), cur.Hash)
}
