package search

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// optimizeAfter is how many facts a change must touch for apply to write
// every term's postings again rather than edit those of the facts changed.
const optimizeAfter = 500

// Sync makes the index hold exactly the memories of snap: new files are
// added, files whose hash changed are indexed again, files not in snap are
// dropped. A memory with an empty Hash is always indexed again. It costs the
// files that changed, and nothing more when none did.
//
// Sync also records the fingerprint of the files as snap saw them (from the
// stamps an index.Store keeps), so that Fresh in another process finds the
// index fresh while the folder stays as it was. A snapshot without stamps
// costs a look at the folder: when its files are not those of snap (it was
// taken before a change Sync will be called for again), the index is marked
// stale, and the next Fresh rebuilds it from the files. The daemon calls
// Sync after each change to its index.Store.
//
// A first Sync of a large store takes seconds (10,000 facts: about 2 s);
// cancelling ctx stops it, leaving the index as it was.
func (x *Index) Sync(ctx context.Context, snap index.Snapshot) error {
	sum := ""
	if stamps, ok := snap.Stamps(); ok {
		sum = sumStamps(stamps)
	} else if fp, err := takeFingerprint(x.memoryDir); err == nil && fp.sameFiles(snap) {
		sum = fp.sum
	}
	return x.do(ctx, func() error {
		_, err := x.apply(ctx, snap, sum)
		return err
	})
}

// Fresh makes sure the index matches the files, for a command about to
// search: when the folder's fingerprint is the one stored with the index it
// does nothing more (a listing of the folder); otherwise — the index is new,
// was deleted, reset or replaced, or the files changed while no daemon
// synced them — it scans the folder and brings the index up to date with
// Sync's rules. It fails only when the memory folder cannot be read.
func (x *Index) Fresh(ctx context.Context) error {
	return x.do(ctx, func() error { return x.fresh(ctx) })
}

// Update is Sync for a command that has just written into the folder and
// holds a scan of it made afterwards (snap): a search right after the
// command finds the change without waiting for the daemon to index it.
// Without a search index yet it does nothing — the first search builds one,
// and a write never pays for that.
func Update(ctx context.Context, stateDir, memoryDir string, snap index.Snapshot) error {
	if _, err := os.Lstat(filepath.Join(stateDir, state.SearchFile)); err != nil {
		return nil
	}
	x, err := Open(stateDir, memoryDir)
	if err != nil {
		return err
	}
	defer x.Close()
	return x.Sync(ctx, snap)
}

func (x *Index) fresh(ctx context.Context) error {
	fp, err := takeFingerprint(x.memoryDir)
	if err != nil {
		return err
	}
	stored, err := storedFingerprint(x.db)
	if err != nil || stored == fp.sum {
		return err
	}
	return x.rebuild(ctx, fp)
}

// rebuild scans the folder, whose fingerprint was fp before the scan, and
// brings the index up to date with Sync's rules. It records the
// fingerprint of the files as the scan read them, or fp when the scan
// cannot tell.
func (x *Index) rebuild(ctx context.Context, fp fingerprint) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	x.scans++
	snap, err := index.Scan(x.memoryDir)
	if err != nil {
		return err
	}
	sum := fp.sum
	if stamps, ok := snap.Stamps(); ok {
		sum = sumStamps(stamps)
	}
	_, err = x.apply(ctx, snap, sum)
	return err
}

// storedFingerprint returns the fingerprint stored with the index, "" when
// none is (the index was never built, or is known to be stale).
func storedFingerprint(q queryer) (string, error) {
	var sum string
	err := q.QueryRow(`SELECT value FROM meta WHERE key = 'fingerprint'`).Scan(&sum)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return sum, err
}

// indexed is a row of fact as apply compares it.
type indexed struct {
	id   int64
	hash string
}

// hashCache is the fact table's files with their row ids and hashes as this
// Index's connection last saw them, so that a Sync of one change does not
// read 10,000 rows. It holds while PRAGMA data_version stays the same: that
// changes when another connection commits, and only then.
type hashCache struct {
	rows    map[string]indexed
	version int64
}

// apply makes the index hold the memories of snap and the fingerprint sum,
// in one transaction, and returns how many facts it added, changed or
// dropped. It writes nothing when nothing differs.
//
// A fact indexed again keeps its row id; a new one takes the lowest free
// one above the highest in use. A small change edits the postings of the
// terms of the facts it touches, old text and new; a large one (a first
// build, a pull) writes every term's postings again from snap.
func (x *Index) apply(ctx context.Context, snap index.Snapshot, sum string) (int, error) {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	old, err := x.hashes(tx)
	if err != nil {
		return 0, err
	}
	// The cache changes only once the transaction has committed.
	seen := make(map[string]bool, len(snap.Memories))
	var keep, changed []*index.Memory
	for _, m := range snap.Memories {
		if index.InInbox(m.File) {
			continue // waits for review: not a fact until a person accepts it, never returned to an agent
		}
		if seen[m.File] {
			continue // the same file twice: the first one counts
		}
		seen[m.File] = true
		if prev, ok := old[m.File]; ok && m.Hash != "" && prev.hash == m.Hash {
			keep = append(keep, m)
			continue
		}
		changed = append(changed, m)
	}
	var gone []string
	for file := range old {
		if !seen[file] {
			gone = append(gone, file)
		}
	}
	n := len(changed) + len(gone)
	stored, err := storedFingerprint(tx)
	if err != nil {
		return 0, err
	}
	if n == 0 && stored == sum {
		return 0, nil
	}
	set := make(map[string]indexed, len(changed))
	if n > 0 {
		w, err := newWriter(ctx, tx)
		if err != nil {
			return 0, err
		}
		defer w.close()
		if set, err = w.change(old, keep, changed, gone, n >= optimizeAfter || len(old) == 0); err != nil {
			return 0, err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES ('fingerprint', ?)`, sum); err != nil {
		return 0, err
	}
	err = tx.Commit()
	x.view = nil // this connection's own commit leaves data_version as it was
	if err != nil {
		x.cache = nil
		return 0, err
	}
	maps.Copy(old, set)
	for _, file := range gone {
		delete(old, file)
	}
	return n, nil
}

// hashes returns every indexed file with its row id and hash, from the
// cache when no other connection has committed since it was filled. tx is
// a write transaction, so nobody else commits until it ends.
func (x *Index) hashes(tx *sql.Tx) (map[string]indexed, error) {
	var version int64
	if err := tx.QueryRow(`PRAGMA data_version`).Scan(&version); err != nil {
		return nil, err
	}
	if c := x.cache; c != nil && c.version == version {
		return c.rows, nil
	}
	x.cache = nil
	rows, err := tx.Query(`SELECT id, file, hash FROM fact`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	old := make(map[string]indexed)
	for rows.Next() {
		var file string
		var e indexed
		if err := rows.Scan(&e.id, &file, &e.hash); err != nil {
			return nil, err
		}
		old[file] = e
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	x.cache = &hashCache{rows: old, version: version}
	return old, nil
}

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
