package search

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
)

func TestDeletedIndex(t *testing.T) {
	f := newFolder(t, tabsFact)
	x := f.open()
	q := Query{Words: "tabs"}
	wantFiles(t, q, find(t, x, q), tabsFact.file())
	removeIndex(t, f)

	// The open Index notices and builds a new one.
	wantFiles(t, q, find(t, x, q), tabsFact.file())
	if _, err := os.Stat(f.dbPath()); err != nil {
		t.Errorf("no new index file: %v", err)
	}
	removeIndex(t, f)
	if err := x.Sync(context.Background(), f.snapshot()); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, q, find(t, x, q), tabsFact.file())

	x.Close()
	removeIndex(t, f)
	y := f.open()
	if err := y.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, q, find(t, y, q), tabsFact.file())
	removeIndex(t, f)
	os.RemoveAll(f.stateDir)
	wantFiles(t, q, find(t, y, q), tabsFact.file())
}

func removeIndex(t *testing.T, f *folder) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(f.dbPath() + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

func TestCorruptIndex(t *testing.T) {
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(i*7 + i/13)
	}
	for _, c := range []struct {
		name    string
		corrupt func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) { writeFile(t, path, garbage) }},
		{"garbage after the header", func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			copy(data[100:], garbage)
			writeFile(t, path, data)
		}},
		{"truncated", func(t *testing.T, path string) {
			if err := os.Truncate(path, 4096+100); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty", func(t *testing.T, path string) { writeFile(t, path, nil) }},
		{"text", func(t *testing.T, path string) { writeFile(t, path, []byte("hello\n")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFolder(t, tabsFact)
			for i := range 50 {
				f.write(fact{"user", "filler-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), "Filler", "", "Words to fill pages."})
			}
			q := Query{Words: "tabs"}
			x := f.open()
			wantFiles(t, q, find(t, x, q), tabsFact.file())
			x.Close() // checkpoints the log into the file
			c.corrupt(t, f.dbPath())

			y := f.open()
			wantFiles(t, q, find(t, y, q), tabsFact.file())

			// Corrupted again under an open Index.
			c.corrupt(t, f.dbPath())
			wantFiles(t, q, find(t, y, q), tabsFact.file())
			c.corrupt(t, f.dbPath())
			if err := y.Fresh(context.Background()); err != nil {
				t.Fatalf("Fresh: %v", err)
			}
			c.corrupt(t, f.dbPath())
			if err := y.Sync(context.Background(), f.snapshot()); err != nil {
				t.Fatalf("Sync: %v", err)
			}
			wantFiles(t, q, find(t, y, q), tabsFact.file())

			// Another process opens the file damaged under y.
			c.corrupt(t, f.dbPath())
			if c.name == "empty" {
				// An empty file is a valid database, which y's lock keeps
				// others from writing: y must replace it first.
				wantFiles(t, q, find(t, y, q), tabsFact.file())
			}
			z := f.open()
			wantFiles(t, q, find(t, z, q), tabsFact.file())
			wantFiles(t, q, find(t, y, q), tabsFact.file())
			checkIntegrity(t, f.dbPath())
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestOtherSchemaVersion(t *testing.T) {
	f := newFolder(t, tabsFact)
	db, err := sql.Open("sqlite", f.dbPathURI(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE fact (id INTEGER PRIMARY KEY, old TEXT)`,
		`CREATE VIRTUAL TABLE fact_text USING fts5(x)`,
		`CREATE TABLE leftover (y)`,
		`PRAGMA user_version = 99`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	x := f.open()
	q := Query{Words: "tabs"}
	wantFiles(t, q, find(t, x, q), tabsFact.file())
	checkIntegrity(t, f.dbPath())
}

func (f *folder) dbPathURI(t *testing.T) string {
	if err := os.MkdirAll(f.stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	return "file:" + f.dbPath()
}

// checkIntegrity runs SQLite's own check on the index file, then checks
// that the inverted index is exactly what the facts' rows make: the
// postings of every term, and a doc of every fact.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check: %q, %v", res, err)
	}
	want := make(edits)
	var ids []int64
	rows, err := db.Query(`SELECT id, name, title, description, body FROM fact ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var name, title, description, body string
		if err := rows.Scan(&id, &name, &title, &description, &body); err != nil {
			t.Fatal(err)
		}
		forms, _ := docTerms(name, title, description, body)
		want.addDoc(id, forms)
		ids = append(ids, id)
	}
	rows.Close()
	got := make(map[string][]byte)
	rows, err = db.Query(`SELECT form, stem, postings FROM term`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var form, st string
		var b []byte
		if err := rows.Scan(&form, &st, &b); err != nil {
			t.Fatal(err)
		}
		if st != stem(form) {
			t.Errorf("term %q has stem %q, want %q", form, st, stem(form))
		}
		got[form] = b
	}
	rows.Close()
	for _, form := range want.sortedForms() {
		b, _ := editPostings(nil, nil, want[form].add)
		if string(got[form]) != string(b) {
			t.Errorf("postings of %q differ from the facts' text", form)
		}
		delete(got, form)
	}
	for form := range got {
		t.Errorf("term %q is in no fact", form)
	}
	var blob []byte
	if err := db.QueryRow(`SELECT data FROM blob WHERE key = 'docs'`).Scan(&blob); err != nil && len(ids) > 0 {
		t.Fatal(err)
	}
	docs, err := decodeDocTable(blob)
	if err != nil {
		t.Fatal(err)
	}
	var inDocs []int64
	for id, d := range docs.docs {
		if d.present {
			inDocs = append(inDocs, int64(id))
		}
	}
	if fmt.Sprint(inDocs) != fmt.Sprint(ids) {
		t.Errorf("doc table has facts %v, fact table %v", inDocs, ids)
	}
}

func TestMissingMemoryFolder(t *testing.T) {
	f := newFolder(t, tabsFact)
	x := f.open()
	if err := os.RemoveAll(f.memoryDir); err != nil {
		t.Fatal(err)
	}
	if err := x.Fresh(context.Background()); err == nil {
		t.Error("Fresh of a missing memory folder: no error")
	}
	if _, err := x.Search(context.Background(), Query{Words: "tabs"}); err == nil {
		t.Error("Search of a never built index of a missing memory folder: no error")
	}
}

func TestClosed(t *testing.T) {
	f := newFolder(t, tabsFact)
	x := f.open()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Search(context.Background(), Query{Words: "tabs"}); err == nil {
		t.Error("Search after Close: no error")
	}
	if err := x.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
