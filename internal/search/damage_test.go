package search

import (
	"context"
	"database/sql"
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

// checkIntegrity runs SQLite's and FTS5's own checks on the index file.
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
	if _, err := db.Exec(`INSERT INTO fact_text (fact_text, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("fts5 integrity-check: %v", err)
	}
	var orphans int
	if err := db.QueryRow(`SELECT count(*) FROM fact WHERE id NOT IN (SELECT rowid FROM fact_text)`).Scan(&orphans); err != nil || orphans != 0 {
		t.Errorf("%d facts without text, %v", orphans, err)
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
