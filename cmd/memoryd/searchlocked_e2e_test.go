package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/memoryd/memoryd/internal/state"
)

// TestSearchWhenIndexLocked: with the search index held by another
// process's exclusive lock, `memoryd search` still answers from the files
// (text and --json), says on stderr why, and --json with no result is [].
func TestSearchWhenIndexLocked(t *testing.T) {
	w := newWorld(t)
	addFact(t, w, "feedback", "indent-with-tabs", "Indent with tabs", "Always use tabs in every repository.")
	if out, code := w.runCmd(nil, "search", "tabs"); code != 0 || !strings.Contains(out, "feedback-indent-with-tabs.md") {
		t.Fatalf("search before the lock: exit %d\n%s", code, out)
	}
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(sd, state.SearchFile)+"?_pragma=locking_mode(EXCLUSIVE)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("CREATE TABLE held_by_test(a)"); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := w.runCmd2(nil, "search", "--json", "tabs")
	if code != 0 || !strings.Contains(out, `"feedback-indent-with-tabs.md"`) || !strings.Contains(stderr, "answered from the files") {
		t.Fatalf("search --json with the index locked: exit %d\n%s\nstderr: %s", code, out, stderr)
	}
	out, _, code = w.runCmd2(nil, "search", "--json", "zebra")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("search --json with no result: exit %d\n%s", code, out)
	}
}
