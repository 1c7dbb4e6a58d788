// Package search is the full-text search over the memory files: an SQLite
// FTS5 index in the state folder (state.SearchFile), kept up to date by the
// daemon (Sync) and rebuilt from the files by whoever finds it missing,
// stale or corrupt (Fresh). The files stay the truth: the index is a cache
// that may be deleted at any time, and a damaged one is removed and rebuilt,
// never reported to the user as an error.
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

	"github.com/memoryd/memoryd/state"
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

	mu     sync.Mutex
	closed bool
	db     *sql.DB
	fi     os.FileInfo // the index file as opened, to notice it being replaced
	scans  int         // folder scans by Fresh, for tests
}

// Open opens the index of memoryDir kept in stateDir, creating the state
// folder and the index file when missing. It does not read the memory
// folder: a new, replaced or reset index is empty until Sync or Fresh (or
// Search, which builds an index that was never built). A file that is not
// an SQLite database, or is corrupt, is removed and created again; an index
// of another schema version is emptied. Open fails only when the state
// folder cannot be written.
func Open(stateDir, memoryDir string) (*Index, error) {
	if err := state.Ensure(stateDir); err != nil {
		return nil, err
	}
	x := &Index{stateDir: stateDir, memoryDir: memoryDir,
		path: filepath.Join(stateDir, state.SearchFile)}
	if err := x.open(); err != nil {
		if !isCorrupt(err) {
			return nil, fmt.Errorf("open search index: %w", err)
		}
		if err := x.recover(); err != nil {
			return nil, fmt.Errorf("open search index: %w", err)
		}
	}
	return x, nil
}

// Close closes the database. The Index must not be used afterwards.
func (x *Index) Close() error {
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
	fi, err := os.Stat(x.path)
	if err == nil {
		err = ensureSchema(db)
	}
	if err != nil {
		db.Close()
		return err
	}
	x.db, x.fi = db, fi
	return nil
}

// reopen closes the database and opens the file at x.path again.
func (x *Index) reopen() error {
	if x.db != nil {
		x.db.Close()
		x.db = nil
	}
	return x.open()
}

// ensure opens the index again when the file at x.path is missing or is not
// the one x has open (deleted, or replaced by another process's recovery),
// or when a previous call left x without a database. A file emptied behind
// x's back is replaced: in WAL mode SQLite trusts its page cache and would
// not notice, while the connection's lock kept every other process from
// writing the file again.
func (x *Index) ensure() error {
	if x.db != nil {
		fi, err := os.Stat(x.path)
		switch {
		case err == nil && os.SameFile(fi, x.fi) && fi.Size() > 0:
			return nil
		case err == nil && os.SameFile(fi, x.fi):
			return x.recover()
		}
	}
	err := x.reopen()
	if isCorrupt(err) {
		err = x.recover()
	}
	return err
}

// recover replaces a corrupt index file with an empty one. It holds the
// recovery lock and checks the file again first: another process may have
// replaced it already, and a healthy file is never removed.
func (x *Index) recover() error {
	if x.db != nil {
		x.db.Close()
		x.db = nil
	}
	lock, err := state.LockWait(x.stateDir, state.SearchFile+".lock")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	err = x.open()
	if !isCorrupt(err) {
		return err
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(x.path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove corrupt search index: %w", err)
		}
	}
	return x.open()
}

// do runs fn with the lock held on an open database. When fn fails because
// the index is corrupt, the file is replaced and fn runs once more, after
// again(ctx) when it is not nil.
func (x *Index) do(ctx context.Context, fn func() error, again func(context.Context) error) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return errors.New("search index is closed")
	}
	if err := x.ensure(); err != nil {
		return fmt.Errorf("open search index: %w", err)
	}
	err := fn()
	if !isCorrupt(err) {
		return err
	}
	if err := x.recover(); err != nil {
		return fmt.Errorf("replace corrupt search index: %w", err)
	}
	if again != nil {
		if err := again(ctx); err != nil {
			return err
		}
	}
	return fn()
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

// SQLite's primary result codes that isCorrupt looks for.
const (
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)
