package facts

import (
	"context"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/index"
)

// ErrSuperseded means the fact named was already replaced by another.
var ErrSuperseded = fmt.Errorf("is already superseded")

// Supersede writes f as a new fact that replaces old (a file name, or the
// name part of one), in one transaction and one commit: f is created, and
// old stays in the folder with metadata.superseded_by (f's file) and
// metadata.superseded_at (today), so no index lists it and search returns
// it only when asked for every version. show and why still read it; undo
// of the commit removes f and brings old back into the indexes.
//
// Refused: old not found, readonly, already superseded, the same file as
// f, or in another project than f; f failing Check, existing, or
// duplicating a fact other than old.
func (w *Writer) Supersede(ctx context.Context, f Fact, old string) (Done, error) {
	f.Description = strings.TrimSpace(f.Description)
	f.Body = strings.TrimSpace(strings.ReplaceAll(f.Body, "\r\n", "\n")) + "\n"
	if err := Check(f); err != nil {
		return Done{}, err
	}
	tx, err := w.opts.Folder.Begin(ctx, "memoryd "+w.opts.Who)
	if err != nil {
		return Done{}, err
	}
	defer tx.Close()
	snap := tx.Snapshot()
	prev, err := Find(snap, old)
	if err != nil {
		return Done{}, err
	}
	file := f.File()
	switch {
	case prev.File == file:
		return Done{}, fmt.Errorf("%w: %s cannot supersede itself; to change it, replace or edit it", ErrInvalid, file)
	case prev.Readonly:
		return Done{}, fmt.Errorf("%s %w (metadata.readonly): memoryd never changes it", prev.File, ErrReadonly)
	case prev.Superseded():
		return Done{}, fmt.Errorf("%s %w by %s: supersede that one instead", prev.File, ErrSuperseded, prev.SupersededBy)
	case prev.Scope() != f.Project:
		return Done{}, fmt.Errorf("%w: %s is %s and the new fact %s; give the new one the same project", ErrInvalid, prev.File, scopeWords(prev.Scope()), scopeWords(f.Project))
	}
	if err := unreadable(snap, file); err != nil {
		return Done{}, err
	}
	if ByFile(snap, file) != nil {
		return Done{}, fmt.Errorf("%s %w; choose another name for the fact that supersedes %s", file, ErrExists, prev.File)
	}
	if dup := duplicate(snap, file, f); dup != "" && dup != prev.File {
		return Done{}, fmt.Errorf("%s %w %s: %s", file, ErrDuplicate, dup, "say it there, or forget that one first")
	}
	cites, err := w.citesOf(f)
	if err != nil {
		return Done{}, err
	}
	m := index.NewMemory(f.Type, f.Name, f.Description, f.Body)
	m.Project, m.Cites = f.Project, cites
	Stamp(m, w.source(), w.now())
	if err := tx.Write(file, m.Format(), ""); err != nil {
		return Done{}, err
	}
	if err := tx.Write(prev.File, MarkSuperseded(prev, file, w.today()), prev.Hash); err != nil {
		return Done{}, err
	}
	done := Done{File: file, Action: "created", Superseded: prev.File}
	res, err := tx.Commit(ctx, commitmsg.Message{
		Subject: fmt.Sprintf("memory: supersede %s with %s (%s)", prev.File, file, w.opts.Who),
		Kind:    commitmsg.KindSupersede, Writer: w.writer()})
	done.Commit = res.Commit
	return done, err
}

// MarkSuperseded returns the bytes of old marked as replaced by file on
// date: metadata.superseded_by and metadata.superseded_at, the rest of the
// file as it is. Compaction and extraction use it too.
func MarkSuperseded(old *index.Memory, file, date string) []byte {
	c := *old
	c.SupersededBy, c.SupersededAt = file, date
	return c.Format()
}

func scopeWords(slug string) string {
	if slug == "" {
		return "global"
	}
	return "of project " + slug
}
