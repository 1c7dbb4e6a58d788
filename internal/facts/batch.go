package facts

import (
	"context"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/index"
)

// Item is one fact of a batch, with where it came from.
type Item struct {
	Fact
	// Source is its metadata.source entry; when Source.Agent is empty the
	// writer's own (Options.Who) is recorded.
	Source index.Source
}

// Result is what SaveAll did, or would do, with one item.
type Result struct {
	File    string // the file it is (or would be) written to, or the one it duplicates
	Skipped error  // why it is not written, wrapping ErrInvalid, ErrSecret or ErrDuplicate; nil when written
}

// SaveAll writes the items as new facts and commits them in one commit with
// the subject message(n), n the number written: an import. Each item goes
// through Save's checks; an item whose text (body or description, compared
// canonically) a fact already holds — in the folder or earlier in items —
// is skipped as a duplicate, and so is one that fails a check: skips are
// results, not errors. An item whose file name another fact holds gets the
// first free name with a numbered suffix ("testing-2"). Existing facts are
// never changed. With dryRun the same path runs on a dry-run transaction
// (folder.Folder.BeginDryRun): nothing is written and the lock is not taken.
// It returns one Result per item, in order, and the commit ("" when
// nothing was written, or there is no repository).
func (w *Writer) SaveAll(ctx context.Context, items []Item, message func(n int) string, dryRun bool) ([]Result, string, error) {
	begin := w.opts.Folder.Begin
	if dryRun {
		begin = w.opts.Folder.BeginDryRun // the same path, recorded instead of written
	}
	tx, err := begin(ctx, "memoryd "+w.opts.Who)
	if err != nil {
		return nil, "", err
	}
	defer tx.Close()
	results, files := w.plan(tx.Snapshot(), items)
	if len(files) == 0 {
		return results, "", nil
	}
	for _, f := range files {
		if err := tx.Write(f.File, f.data, ""); err != nil {
			return results, "", err // the files written so far stay, for the daemon to commit
		}
	}
	res, err := tx.Commit(ctx, commitmsg.Message{Subject: message(len(files)), Kind: commitmsg.KindImport, Writer: commitmsg.Model})
	return results, res.Commit, err
}

// planned is a file SaveAll writes.
type planned struct {
	File string
	data []byte
}

// plan decides each item's fate against snap and the items before it.
func (w *Writer) plan(snap index.Snapshot, items []Item) ([]Result, []planned) {
	results := make([]Result, len(items))
	var files []planned
	taken := map[string]bool{}
	var earlier []*index.Memory // the batch's facts so far, for duplicates
	for i, it := range items {
		f := it.Fact
		f.Description = strings.TrimSpace(f.Description)
		f.Body = strings.TrimSpace(strings.ReplaceAll(f.Body, "\r\n", "\n")) + "\n"
		if err := Check(f); err != nil {
			results[i].Skipped = err
			continue
		}
		if dup := duplicate(snap, "", f); dup != "" {
			results[i] = Result{File: dup, Skipped: fmt.Errorf("%w %s", ErrDuplicate, dup)}
			continue
		}
		if dup := duplicate(index.Snapshot{Memories: earlier}, "", f); dup != "" {
			results[i] = Result{File: dup, Skipped: fmt.Errorf("%w %s, imported with it", ErrDuplicate, dup)}
			continue
		}
		f.Name = freeName(snap, taken, f)
		m := index.NewMemory(f.Type, f.Name, f.Description, f.Body)
		m.Project = f.Project
		src := it.Source
		if src.Agent == "" {
			src = w.source()
		}
		Stamp(m, src, w.now())
		taken[m.File] = true
		earlier = append(earlier, m)
		results[i].File = m.File
		files = append(files, planned{File: m.File, data: m.Format()})
	}
	return results, files
}

// freeName is f's name, or with the first numbered suffix that makes its
// file name one no fact, unreadable file or earlier item holds.
func freeName(snap index.Snapshot, taken map[string]bool, f Fact) string {
	name := f.Name
	for n := 2; ; n++ {
		file := Fact{Type: f.Type, Name: name}.File()
		if ByFile(snap, file) == nil && unreadable(snap, file) == nil && !taken[file] {
			return name
		}
		suffix := fmt.Sprintf("-%d", n)
		base := f.Name
		if len(base)+len(suffix) > 64 {
			base = strings.TrimRight(base[:64-len(suffix)], "-")
		}
		name = base + suffix
	}
}
