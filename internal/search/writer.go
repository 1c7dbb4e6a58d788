package search

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// This file writes the index's changes inside one transaction: facts
// removed, inserted and changed, their postings, and the doc table.

// writer holds the statements apply changes rows with.
type writer struct {
	ctx                                context.Context
	tx                                 *sql.Tx
	delFact, getFact                   *sql.Stmt
	getTerm, delTerm, getDocs, putDocs *sql.Stmt
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{ctx: ctx, tx: tx}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&w.delFact, `DELETE FROM fact WHERE id = ?`},
		{&w.getFact, `SELECT name, title, description, body FROM fact WHERE id = ?`},
		{&w.getTerm, `SELECT postings FROM term WHERE form = ?`},
		{&w.delTerm, `DELETE FROM term WHERE form = ?`},
		{&w.getDocs, `SELECT data FROM blob WHERE key = 'docs'`},
		{&w.putDocs, `INSERT OR REPLACE INTO blob (key, data) VALUES ('docs', ?)`},
	} {
		stmt, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.stmt = stmt
	}
	return w, nil
}

func (w *writer) close() {
	for _, s := range []*sql.Stmt{w.delFact, w.getFact, w.getTerm, w.delTerm, w.getDocs, w.putDocs} {
		if s != nil {
			s.Close()
		}
	}
}

// change writes the facts changed, drops those gone and keeps the rest
// (old is the index before), returning the row ids and hashes of the
// changed ones. With all set it writes every term's postings again, from
// keep and changed; otherwise it edits those of the terms of the facts
// changed and gone.
func (w *writer) change(old map[string]indexed, keep, changed []*index.Memory, gone []string, all bool) (map[string]indexed, error) {
	docs, err := w.docs(all)
	if err != nil {
		return nil, err
	}
	ed := make(edits)
	// Out with the old: the facts gone, and the old text of those changed.
	var out []int64
	for _, file := range gone {
		out = append(out, old[file].id)
	}
	for _, m := range changed {
		if prev, ok := old[m.File]; ok {
			out = append(out, prev.id)
		}
	}
	if err := w.remove(out, all, ed, docs); err != nil {
		return nil, err
	}
	set, err := w.insert(old, changed, ed, docs)
	if err != nil {
		return nil, err
	}
	if all {
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM term`); err != nil {
			return nil, err
		}
		for i, ft := range termsOfAll(keep) {
			id := old[keep[i].File].id
			ed.addDoc(id, ft.forms)
			docs.set(id, newDoc(keep[i], ft.lens))
		}
	}
	if err := w.postings(ed, all); err != nil {
		return nil, err
	}
	_, err = w.putDocs.ExecContext(w.ctx, docs.encode())
	return set, err
}

// remove deletes the facts of row ids out, and (unless all, which writes
// every posting again) their terms' postings.
func (w *writer) remove(out []int64, all bool, ed edits, docs *docTable) error {
	for _, id := range out {
		if !all {
			var name, title, description, body string
			if err := w.getFact.QueryRowContext(w.ctx, id).Scan(&name, &title, &description, &body); err != nil {
				return fmt.Errorf("read fact %d: %w", id, err)
			}
			forms, _ := docTerms(name, title, description, body)
			ed.dropDoc(id, forms)
		}
		if _, err := w.delFact.ExecContext(w.ctx, id); err != nil {
			return err
		}
		docs.remove(id)
	}
	return nil
}

// insert writes the facts changed, by metadata.updated and file, so that
// row ids of new facts, the last tie-break of a search, follow file names
// among the facts of a day; a changed fact keeps its row id. It returns
// their row ids and hashes.
func (w *writer) insert(old map[string]indexed, changed []*index.Memory, ed edits, docs *docTable) (map[string]indexed, error) {
	slices.SortFunc(changed, func(a, b *index.Memory) int {
		return cmp.Or(strings.Compare(a.UpdatedDate(), b.UpdatedDate()), strings.Compare(a.File, b.File))
	})
	set := make(map[string]indexed, len(changed))
	var next int64 = 1
	for _, e := range old {
		next = max(next, e.id+1)
	}
	fts := termsOfAll(changed)
	rows := newRowBatch(w.ctx, w.tx, insertFact, 11)
	defer rows.close()
	for i, m := range changed {
		id := next
		if prev, ok := old[m.File]; ok {
			id = prev.id
		} else {
			next++
		}
		if err := rows.add(id, m.File, m.Hash, m.Type, m.Scope(), m.UpdatedDate(),
			m.Name, m.Title, m.Description, m.Body, m.SupersededBy); err != nil {
			return nil, fmt.Errorf("index the facts up to %s: %w", m.File, err)
		}
		ed.addDoc(id, fts[i].forms)
		docs.set(id, newDoc(m, fts[i].lens))
		set[m.File] = indexed{id, m.Hash}
	}
	if err := rows.flush(); err != nil {
		return nil, fmt.Errorf("index the facts: %w", err)
	}
	return set, nil
}

// insertFact starts the INSERT of fact rows.
const insertFact = `INSERT INTO fact (id, file, hash, type, project, updated, name, title, description, body, superseded_by) VALUES `

// postings writes the terms' postings as ed edits them; with all, from
// nothing.
func (w *writer) postings(ed edits, all bool) error {
	puts := newRowBatch(w.ctx, w.tx, `INSERT OR REPLACE INTO term (form, stem, postings) VALUES `, 3)
	defer puts.close()
	for _, form := range ed.sortedForms() {
		fe := ed[form]
		var b []byte
		if !all {
			if err := w.getTerm.QueryRowContext(w.ctx, form).Scan(&b); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		b, err := editPostings(b, fe.drop, fe.add)
		if err != nil {
			return err
		}
		if len(b) == 0 {
			_, err = w.delTerm.ExecContext(w.ctx, form)
		} else {
			err = puts.add(form, stem(form), b)
		}
		if err != nil {
			return fmt.Errorf("index the term %q: %w", form, err)
		}
	}
	if err := puts.flush(); err != nil {
		return fmt.Errorf("index the terms: %w", err)
	}
	return nil
}

// docs reads the doc table, or starts an empty one when all is set.
func (w *writer) docs(all bool) (*docTable, error) {
	if all {
		return &docTable{}, nil
	}
	var b []byte
	if err := w.getDocs.QueryRowContext(w.ctx).Scan(&b); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	return decodeDocTable(b)
}
