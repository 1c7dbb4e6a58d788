package search

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"os"
	"path/filepath"

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
	keep, changed, gone := sortOut(snap, old)
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

// sortOut sorts the facts of snap against the index's (old): those kept
// as they are, those new or changed, and the files gone. A fact in the
// review inbox is not one until a person accepts it, and is never given
// to an agent; a file listed twice counts once.
func sortOut(snap index.Snapshot, old map[string]indexed) (keep, changed []*index.Memory, gone []string) {
	seen := make(map[string]bool, len(snap.Memories))
	for _, m := range snap.Memories {
		if index.InInbox(m.File) || seen[m.File] {
			continue
		}
		seen[m.File] = true
		if prev, ok := old[m.File]; ok && m.Hash != "" && prev.hash == m.Hash {
			keep = append(keep, m)
			continue
		}
		changed = append(changed, m)
	}
	for file := range old {
		if !seen[file] {
			gone = append(gone, file)
		}
	}
	return keep, changed, gone
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
