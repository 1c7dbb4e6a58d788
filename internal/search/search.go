// Package search is the full-text search over the memory files: an
// inverted index memoryd keeps itself in an SQLite file in the state folder
// (state.SearchFile; no SQLite full-text module). Each term of a fact's
// name, title, description and body — words folded, identifiers split into
// their parts, Porter stems (text.go, porter.go) — has its postings
// (postings.go); a query reads the postings of its words, their stems, their
// synonyms (synonyms.go) and, for the last word, its prefix, and ranks the
// facts by BM25F with per-field weights, a project boost, then pinned and
// updated (query.go). Optionally a second signal, embeddings of the facts
// fused with the word ranking, comes in when an endpoint is configured
// (dense.go). The index is kept up to date by the daemon (Sync) and after
// each write of a command (Update), and rebuilt from the files by whoever
// finds it missing, stale — its fingerprint of the folder no longer matches
// (fingerprint.go) — or corrupt (Fresh); when it cannot be opened at all,
// FindOrScan answers from the files with the same ranking. The files stay
// the truth: the index is a cache that may be deleted at any time, and a
// damaged one is removed and rebuilt, never reported to the user as an
// error.
//
// Several processes share one index file — the daemon syncing while a CLI
// command or the MCP server searches. SQLite's write-ahead log lets readers
// go on while a writer works; every write is one transaction, so a reader
// sees the index before or after a change, never half of it; and two
// processes rebuilding at once take turns on SQLite's write lock, the second
// finding the work done.
package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/memoryd/memoryd/internal/state"
)

// busyTimeout is how long a statement waits for another process's write
// transaction — a full rebuild of a large store included — before failing.
const busyTimeout = 10 * time.Second

// Index is the search index of one memory folder.
//
// It is safe for concurrent use; calls are serialized. Before each call it
// checks that the index file on disk is still the one it opened, and opens
// it again when it was deleted or replaced, so that a long-lived daemon
// never writes into a file nobody else can see.
type Index struct {
	stateDir, memoryDir string
	path                string

	mu       sync.Mutex
	closed   bool
	db       *sql.DB
	fi       os.FileInfo   // the index file as opened, to notice it being replaced
	cache    *hashCache    // see apply; belongs to the connection in db
	view     *view         // see find; belongs to the connection in db
	embedder Embedder      // see SetEmbedder
	fusion   string        // see SetFusion
	stale    *staleVectors // vectors of another dimension than a query's, to drop (dense.go)
	vecs     *vecStore     // the vectors held, int8, across views (vectors.go)
	scans    int           // folder scans by Fresh, for tests
}

// Open opens the index of memoryDir kept in stateDir, creating the state
// folder and the index file when missing. It does not read the memory
// folder: a new, replaced or reset index is empty until Sync or Fresh (or
// Search, which builds an index that was never built). A file that is not
// an SQLite database, or is corrupt, is removed and created again; an index
// of another schema version is emptied. Open fails only when the state
// folder cannot be written.
func Open(stateDir, memoryDir string) (*Index, error) {
	x := &Index{stateDir: stateDir, memoryDir: memoryDir,
		path: filepath.Join(stateDir, state.SearchFile)}
	if err := x.do(context.Background(), func() error { return nil }); err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	return x, nil
}

// Close closes the database, after the embedder (embed.Client.Wait) has
// recorded its queries' tokens. The Index must not be used afterwards.
func (x *Index) Close() error {
	if w, ok := x.getEmbedder().(interface{ Wait() }); ok {
		w.Wait()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	if x.db == nil {
		return nil
	}
	err := x.db.Close()
	x.db = nil
	return err
}

// open opens the index file, creating it (mode 0600: SQLite gives its
// -wal and -shm files the mode of the database) when missing, and makes
// sure it holds the current schema.
func (x *Index) open() error {
	if err := state.Ensure(x.stateDir); err != nil {
		return err
	}
	// A new database is made under the lock: two processes making one at
	// once may find each other holding the lock the other needs to switch
	// it to WAL mode, and SQLite then fails one of them at once.
	if fi, err := os.Stat(x.path); errors.Is(err, os.ErrNotExist) || err == nil && fi.Size() == 0 {
		lock, err := x.lock()
		if err != nil {
			return err
		}
		defer lock.Unlock()
		return x.openLocked()
	}
	return x.openLocked()
}

// lock takes the lock held while the index file is made or replaced.
func (x *Index) lock() (*state.Lock, error) {
	return state.LockWait(x.stateDir, state.SearchFile+".lock")
}

// openLocked is open for a caller holding the lock, or for a file that
// exists and is not empty.
func (x *Index) openLocked() error {
	// Create the file before SQLite does, to choose its mode. O_EXCL: an
	// existing file is never opened here, because closing any descriptor of
	// a database file drops the POSIX locks SQLite holds on it in this
	// process.
	if f, err := os.OpenFile(x.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return err
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// A full rebuild grows the log to the size of the index; cut it back
	// after each checkpoint rather than keep megabytes around.
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", 4<<20))
	q.Set("_txlock", "immediate") // every transaction here writes
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(x.path), RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	// One connection: calls are serialized by x.mu anyway, and the pragmas
	// above then hold for everything this Index does.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	// Which file SQLite opened is known from a stat before it connects and
	// one after, when both see the same file.
	before, err := os.Stat(x.path)
	if err == nil {
		err = ensureSchema(db)
	}
	var after os.FileInfo
	if err == nil {
		after, err = os.Stat(x.path)
	}
	if err == nil && !os.SameFile(before, after) {
		err = errReplaced
	}
	if err != nil {
		db.Close()
		if errors.Is(err, os.ErrNotExist) {
			err = errReplaced
		}
		return err
	}
	x.db, x.fi = db, after
	return nil
}

// errReplaced is the index file being deleted or replaced by another
// process while this one opened it.
var errReplaced = errors.New("search index file replaced while opening it")

// drop closes the database, so that the next call opens the file again.
func (x *Index) drop() {
	if x.db != nil {
		x.db.Close()
		x.db = nil
	}
	x.cache = nil
	x.view = nil
	x.vecs = nil
}

// ensure opens the index file when x has no database, or when the file at
// x.path is missing or is not the one x has open (deleted, or replaced by
// another process's recovery). A file emptied behind x's back is replaced:
// in WAL mode SQLite trusts its page cache and would not notice, while the
// connection's lock kept every other process from writing the file again.
func (x *Index) ensure() error {
	if x.db != nil {
		fi, err := os.Stat(x.path)
		switch {
		case err == nil && os.SameFile(fi, x.fi) && fi.Size() > 0:
			return nil
		case err == nil && os.SameFile(fi, x.fi):
			return x.recover()
		}
		x.drop()
	}
	return x.open()
}

// recover replaces a corrupt index file with an empty one. It holds the
// recovery lock and checks the file again first: another process may have
// replaced it already, and a healthy file is never removed.
func (x *Index) recover() error {
	x.drop()
	lock, err := x.lock()
	if err != nil {
		return err
	}
	defer lock.Unlock()
	err = x.openLocked()
	if !isCorrupt(err) {
		return err
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(x.path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove corrupt search index: %w", err)
		}
	}
	return x.openLocked()
}

// attempts is how many times do tries a call that fails because the index
// file was damaged, deleted or replaced under it; retryDelay is the first
// wait between tries, doubled each time.
const (
	attempts   = 5
	retryDelay = 5 * time.Millisecond
)

// do runs fn with the lock held on an open database. When the file turns
// out to be corrupt, it is replaced and fn runs again; when another process
// deleted, replaced or was making it at the wrong moment (SQLite then
// reports an I/O error, a moved file, or a lock it gave up on at once), the
// file is opened again and fn runs again, a few times at most. fn
// must therefore be safe to run again from the start: every change it makes
// is one transaction.
func (x *Index) do(ctx context.Context, fn func() error) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return errors.New("search index is closed")
	}
	var err error
	for attempt := range attempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(retryDelay << (attempt - 1)):
			}
		}
		start := time.Now()
		err = x.ensure()
		if err == nil {
			err = fn()
		}
		switch {
		case isCorrupt(err):
			start = time.Now()
			if rerr := x.recover(); rerr != nil && !retryable(rerr) && !quickBusy(rerr, start) {
				return fmt.Errorf("replace corrupt search index: %w", rerr)
			}
		case retryable(err), quickBusy(err, start):
			x.drop()
		default:
			return err
		}
	}
	return err
}

// isCorrupt reports whether err means the database file cannot be trusted:
// not a database at all, or corrupt.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqliteCorrupt, sqliteNotADB:
		return true
	}
	return false
}

// retryable reports whether err may come from the index file being
// deleted or replaced by another process while this one used it.
func retryable(err error) bool {
	if errors.Is(err, errReplaced) {
		return true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqliteCorrupt, sqliteNotADB, sqliteIOErr, sqliteCantOpen:
		return true
	}
	return se.Code() == sqliteReadonlyDBMoved
}

// quickBusy reports whether err is SQLite's "database is locked" well
// before the busy timeout: SQLite gives up at once, without waiting, when
// two connections would otherwise wait for each other, as while two
// processes make a new database file, and the one that gave up may try
// again.
func quickBusy(err error, start time.Time) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteBusy && time.Since(start) < busyTimeout/2
}

// SQLite's result codes that isCorrupt and retryable look for.
const (
	sqliteBusy            = 5
	sqliteCorrupt         = 11
	sqliteNotADB          = 26
	sqliteIOErr           = 10
	sqliteCantOpen        = 14
	sqliteReadonlyDBMoved = 8 | 4<<8
)
