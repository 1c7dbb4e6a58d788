package search

import (
	"database/sql"
	"fmt"
	"strings"
)

// schemaVersion is kept in the database's user_version. Change it whenever
// the tables or what goes into them change: an index of another version is
// emptied and built again from the files.
const schemaVersion = 6

// The tables. fact holds each fact's row: what a hit shows, and its text,
// read again when the fact changes to take its terms out of the postings.
// term holds the inverted index (see postings.go): each term's stem and
// postings. blob holds the doc table ('docs'). meta holds the fingerprint of
// the folder the index was last made to match (see fingerprint.go). vector
// holds the facts' embeddings, when an endpoint is configured (dense.go):
// by content hash and model, unit vectors of float32, little-endian (a
// rowid table: its blobs of kilobytes would make a WITHOUT ROWID table's
// key lookups read them).
var schema = []string{
	`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE fact (
		id          INTEGER PRIMARY KEY,
		file        TEXT NOT NULL UNIQUE,
		hash        TEXT NOT NULL,
		type        TEXT NOT NULL,
		project     TEXT NOT NULL,
		updated     TEXT NOT NULL,
		name        TEXT NOT NULL,
		title       TEXT NOT NULL,
		description TEXT NOT NULL,
		body        TEXT NOT NULL,
		superseded_by TEXT NOT NULL DEFAULT ''
	)`,
	`CREATE TABLE term (form TEXT PRIMARY KEY, stem TEXT NOT NULL, postings BLOB NOT NULL)`,
	`CREATE INDEX term_stem ON term (stem)`,
	`CREATE TABLE blob (key TEXT PRIMARY KEY, data BLOB NOT NULL)`,
	`CREATE TABLE vector (
		id    INTEGER PRIMARY KEY,
		hash  TEXT NOT NULL,
		model TEXT NOT NULL,
		dim   INTEGER NOT NULL,
		data  BLOB NOT NULL,
		UNIQUE (hash, model)
	)`,
	fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion),
}

// tables are the tables of the schema, which schemaCurrent looks for.
var tables = []string{"meta", "fact", "term", "blob", "vector"}

// ensureSchema makes sure db holds the current schema, emptying it and
// creating the tables when it holds anything else (nothing at all, for a
// new file). Errors from a file that is not a database come back from here.
func ensureSchema(db *sql.DB) error {
	if ok, err := schemaCurrent(db); ok || err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Another process may have done it while this one waited for the lock.
	if ok, err := schemaCurrent(tx); ok || err != nil {
		return err
	}
	if err := dropAll(tx); err != nil {
		return err
	}
	for _, stmt := range schema {
		if _, err := tx.Exec(stmt); err != nil {
			return fmt.Errorf("create search index: %w", err)
		}
	}
	return tx.Commit()
}

type queryer interface {
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
}

// schemaCurrent reports whether the version and the tables are the current
// ones.
func schemaCurrent(q queryer) (bool, error) {
	var version int
	if err := q.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return false, err
	}
	var n int
	err := q.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('` + strings.Join(tables, "', '") + `')`).Scan(&n)
	return version == schemaVersion && n == len(tables), err
}

// dropAll drops every table: virtual tables first, which drops their
// shadow tables with them, then the rest.
func dropAll(tx *sql.Tx) error {
	for _, virtual := range []bool{true, false} {
		rows, err := tx.Query(`SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
		if err != nil {
			return err
		}
		var names []string
		for rows.Next() {
			var name string
			var text sql.NullString
			if err := rows.Scan(&name, &text); err != nil {
				rows.Close()
				return err
			}
			if strings.HasPrefix(strings.ToUpper(text.String), "CREATE VIRTUAL") == virtual {
				names = append(names, name)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, name := range names {
			if _, err := tx.Exec(`DROP TABLE IF EXISTS "` + strings.ReplaceAll(name, `"`, `""`) + `"`); err != nil {
				return fmt.Errorf("empty search index: %w", err)
			}
		}
	}
	return nil
}
