package transcript

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// OpenCode reads OpenCode's SQLite database (tables session, message and part; the JSON shapes
// are described at ocMessage). It never writes: the database is opened with mode=ro and
// query_only, and without immutable=1, which would ignore the write-ahead log where OpenCode's
// newest rows live. The database file is never modified. SQLite needs the WAL index to read a
// WAL database even read-only: it maps the existing -shm (a reader takes locks in it), and when
// OpenCode shut down and removed -wal and -shm, SQLite creates an empty -wal and a -shm, which
// it leaves behind and OpenCode reuses.
//
// Changed reports a session when its row or its newest message changed at or after since; a late
// change to the newest message (OpenCode records an error without touching the session row) is
// seen only within lateUpdateWindow (24 h) of the row's last change, and always with a zero since.
// OpenCode bumps time_updated of every session of a folder when it moves them to another project
// (the folder became a git repository), so a Changed list can be long now and then.
//
// Each Changed and Messages call reads in one transaction, so it sees one consistent state.
// Queries use OpenCode's own indexes (message_session_time_created_id_idx,
// part_message_id_id_idx); the session table has no index on time_updated and is scanned whole,
// which is cheap (one row per session).
type OpenCode struct {
	name  string
	path  string
	db    *sql.DB
	stmts ocStatements
	opts  Options
	log   *slog.Logger
}

// ocStatements are prepared once: the JSON expressions make parsing a query cost more than
// running it on a small session.
type ocStatements struct {
	changed, tail, exists, meta, parts, msgParts *sql.Stmt
}

func (st *ocStatements) prepare(db *sql.DB) error {
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&st.changed, changedQuery}, {&st.tail, tailQuery}, {&st.exists, existsQuery},
		{&st.meta, metaQuery}, {&st.parts, partsQuery}, {&st.msgParts, msgPartsQuery},
	} {
		stmt, err := db.Prepare(p.query)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		*p.stmt = stmt
	}
	return nil
}

func (st *ocStatements) close() {
	for _, s := range []*sql.Stmt{st.changed, st.tail, st.exists, st.meta, st.parts, st.msgParts} {
		if s != nil {
			s.Close()
		}
	}
}

var _ Source = (*OpenCode)(nil)

// OpenOpenCode opens the OpenCode database at path read-only and checks that it holds OpenCode's
// tables. The source is named "opencode", or "opencode-<channel>" for opencode-<channel>.db.
func OpenOpenCode(path string, opts Options) (*OpenCode, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open opencode database: %w", err)
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open opencode database %s: %w", abs, err)
	}
	// A daemon is mostly idle: let idle connections go, so their page caches and file handles
	// are not held between checks. A bounded lifetime also means a database file replaced under
	// the same name (deleted, restored from a backup) is picked up within minutes.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(time.Minute)
	db.SetConnMaxLifetime(5 * time.Minute)
	s := &OpenCode{name: openCodeName(abs), path: abs, db: db, opts: opts}
	s.log = opts.logger(s.name)
	if err := s.check(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open opencode database %s: %w", abs, err)
	}
	if err := s.stmts.prepare(db); err != nil {
		s.stmts.close()
		db.Close()
		return nil, fmt.Errorf("open opencode database %s: %w", abs, err)
	}
	return s, nil
}

func openCodeName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".db")
	if strings.HasPrefix(base, "opencode-") && len(base) > len("opencode-") {
		return base
	}
	return "opencode"
}

// check verifies the database has the tables this package reads.
func (s *OpenCode) check() error {
	var n int
	err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')`).Scan(&n)
	if err != nil {
		return err
	}
	if n != 3 {
		return errors.New("not an OpenCode database (no session, message and part tables)")
	}
	return nil
}

// Name implements Source.
func (s *OpenCode) Name() string { return s.name }

// Path is the database file.
func (s *OpenCode) Path() string { return s.path }

// WatchPaths implements Source: the database's folder, where OpenCode writes opencode.db-wal.
func (s *OpenCode) WatchPaths() []string { return []string{filepath.Dir(s.path)} }

// Close implements Source.
func (s *OpenCode) Close() error {
	s.stmts.close()
	return s.db.Close()
}

// read runs fn in one read transaction.
func (s *OpenCode) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}
