package search

import (
	"database/sql"
	"fmt"
	"strings"
)

// schemaVersion is kept in the database's user_version. Change it whenever
// the tables or what goes into them change: an index of another version is
// emptied and built again from the files.
const schemaVersion = 3

// The tables. fact holds what search filters and sorts on, fact_text what
// it matches, under the same rowid; fact_head holds the name, title and
// description again, so that finding the words there alone does not read
// every body's positions (see rankWindow). meta holds the fingerprint of the
// folder the index was last made to match (see fingerprint.go).
var schema = []string{
	`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE fact (
		id      INTEGER PRIMARY KEY,
		file    TEXT NOT NULL UNIQUE,
		hash    TEXT NOT NULL,
		type    TEXT NOT NULL,
		project TEXT NOT NULL,
		updated TEXT NOT NULL
	)`,
	// The prefix indexes make a short last word ("go", "con"), which
	// matches a prefix of many terms, cheap to look up.
	`CREATE VIRTUAL TABLE fact_text USING fts5(name, title, description, body,
		tokenize = 'porter unicode61', prefix = '2 3')`,
	`CREATE VIRTUAL TABLE fact_head USING fts5(name, title, description,
		tokenize = 'porter unicode61', prefix = '2 3')`,
	fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion),
}

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
	var version, tables int
	if err := q.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return false, err
	}
	err := q.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('meta', 'fact', 'fact_text', 'fact_head')`).Scan(&tables)
	return version == schemaVersion && tables == 4, err
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
