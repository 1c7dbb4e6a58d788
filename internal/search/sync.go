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

// optimizeAfter is how many rows a change must touch before the full-text
// index is merged into one segment afterwards, which keeps queries fast
// after a rebuild; small changes leave that to FTS5's automatic merging.
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
	w, err := newWriter(ctx, tx)
	if err != nil {
		return 0, err
	}
	defer w.close()
	// The cache changes only once the transaction has committed.
	seen := make(map[string]bool, len(snap.Memories))
	var changed []dated
	for _, m := range snap.Memories {
		if index.InInbox(m.File) {
			continue // waits for review: not a fact until a person accepts it, never returned to an agent
		}
		if seen[m.File] {
			continue // the same file twice: the first one counts
		}
		seen[m.File] = true
		prev, ok := old[m.File]
		if ok && m.Hash != "" && prev.hash == m.Hash {
			continue
		}
		if ok {
			if err := w.remove(prev.id); err != nil {
				return 0, fmt.Errorf("index %s again: %w", m.File, err)
			}
		}
		changed = append(changed, dated{m, m.UpdatedDate()})
	}
	var gone []string
	for file, prev := range old {
		if seen[file] {
			continue
		}
		if err := w.remove(prev.id); err != nil {
			return 0, fmt.Errorf("drop %s from search index: %w", file, err)
		}
		gone = append(gone, file)
	}
	// A fact indexed again gets a new row id, the next one up, and a batch
	// goes in by metadata.updated: row ids then follow the order facts
	// changed in, which a search ranking only the newest matches
	// (rankWindow) relies on. Facts of one day go in by hash, not by file
	// name, which would put all of one type (its prefix) last.
	slices.SortFunc(changed, func(a, b dated) int {
		return cmp.Or(strings.Compare(a.updated, b.updated), strings.Compare(a.Hash, b.Hash), strings.Compare(a.File, b.File))
	})
	set := make(map[string]indexed, len(changed))
	for _, c := range changed {
		id, err := w.insert(c.Memory, c.updated)
		if err != nil {
			return 0, fmt.Errorf("index %s: %w", c.File, err)
		}
		set[c.File] = indexed{id, c.Hash}
	}
	n := len(set) + len(gone)
	stored, err := storedFingerprint(tx)
	if err != nil {
		return 0, err
	}
	if n == 0 && stored == sum {
		return 0, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES ('fingerprint', ?)`, sum); err != nil {
		return 0, err
	}
	if n >= optimizeAfter {
		for _, table := range []string{"fact_text", "fact_head"} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (`+table+`) VALUES ('optimize')`); err != nil {
				return 0, err
			}
		}
	}
	if err := tx.Commit(); err != nil {
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

// dated is a memory with its metadata.updated as a date ("" when none).
type dated struct {
	*index.Memory
	updated string
}

// writer holds the statements apply changes rows with.
type writer struct {
	ctx                                                  context.Context
	insFact, delFact, insText, delText, insHead, delHead *sql.Stmt
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{ctx: ctx}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&w.insFact, `INSERT INTO fact (file, hash, type, project, updated) VALUES (?, ?, ?, ?, ?)`},
		{&w.delFact, `DELETE FROM fact WHERE id = ?`},
		{&w.insText, `INSERT INTO fact_text (rowid, name, title, description, body) VALUES (?, ?, ?, ?, ?)`},
		{&w.delText, `DELETE FROM fact_text WHERE rowid = ?`},
		{&w.insHead, `INSERT INTO fact_head (rowid, name, title, description) VALUES (?, ?, ?, ?)`},
		{&w.delHead, `DELETE FROM fact_head WHERE rowid = ?`},
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
	for _, s := range []*sql.Stmt{w.insFact, w.delFact, w.insText, w.delText, w.insHead, w.delHead} {
		if s != nil {
			s.Close()
		}
	}
}

// insert adds m, whose metadata.updated is the date updated, as the row
// after the last one.
func (w *writer) insert(m *index.Memory, updated string) (int64, error) {
	res, err := w.insFact.ExecContext(w.ctx, m.File, m.Hash, m.Type, m.Scope(), updated)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if _, err := w.insText.ExecContext(w.ctx, id, m.Name, m.Title, m.Description, m.Body); err != nil {
		return 0, err
	}
	_, err = w.insHead.ExecContext(w.ctx, id, m.Name, m.Title, m.Description)
	return id, err
}

func (w *writer) remove(id int64) error {
	for _, s := range []*sql.Stmt{w.delText, w.delHead, w.delFact} {
		if _, err := s.ExecContext(w.ctx, id); err != nil {
			return err
		}
	}
	return nil
}
