package transcript

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func fileSum(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestOpenCodeReadsWAL: rows OpenCode committed but not yet checkpointed live only in the -wal
// file (the fixture turns automatic checkpoints off). A reader with immutable=1 would not see them.
func TestOpenCodeReadsWAL(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 100)
	f.user("ses_1", "msg_1", 10, "in the wal")
	f.assistant("ses_1", "msg_2", 20, true, textPart("also in the wal"))
	if fi, err := os.Stat(f.path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the fixture's rows are not in the WAL: %v", err)
	}
	mainBefore, walBefore := fileSum(t, f.path), fileSum(t, f.path+"-wal")

	s := openSource(t, f.path, Options{})
	wantLines(t, brief(messages(t, s, "ses_1", Watermark{}, 0)), []string{"user: in the wal", "assistant: also in the wal"})
	if _, err := s.db.Exec(`INSERT INTO session (id) VALUES ('x')`); err == nil {
		t.Error("the source's connection accepted a write")
	}
	if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err == nil {
		if fileSum(t, f.path) != mainBefore {
			t.Error("the source checkpointed the WAL into the database")
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fileSum(t, f.path) != mainBefore || fileSum(t, f.path+"-wal") != walBefore {
		t.Error("reading changed the database or its WAL")
	}
}

// TestOpenCodeReadOnlyClosedDatabase: after OpenCode shut down cleanly (WAL checkpointed and
// removed), reading leaves the database file as it was. SQLite needs a WAL index to read a WAL
// database even with mode=ro, so it creates an empty -wal and a -shm next to it and leaves them
// (a read-only connection may not delete them); OpenCode reuses both on its next start.
func TestOpenCodeReadOnlyClosedDatabase(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "opencode.db")
	f := openOCFixture(t, p)
	f.session("ses_1", "", "/w", 100)
	f.user("ses_1", "msg_1", 10, "hello")
	f.assistant("ses_1", "msg_2", 20, true, textPart("world"))
	f.exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	if exists(p+"-wal") || exists(p+"-shm") {
		t.Fatal("the writer left -wal/-shm behind")
	}
	before := fileSum(t, p)
	fi, _ := os.Stat(p)

	s := openSource(t, p, Options{})
	if got := messages(t, s, "ses_1", Watermark{}, 0); len(got) != 2 {
		t.Fatalf("messages: %v", brief(got))
	}
	if ss := changed(t, s, time.Time{}); len(ss) != 1 {
		t.Fatalf("sessions: %v", sessionIDs(ss))
	}
	s.Close()
	after, _ := os.Stat(p)
	if fileSum(t, p) != before || !after.ModTime().Equal(fi.ModTime()) {
		t.Error("reading changed the database file")
	}
	if wal, err := os.Stat(p + "-wal"); err == nil && wal.Size() != 0 {
		t.Errorf("reading wrote %d bytes of WAL", wal.Size())
	}

	// OpenCode starts again and writes; the daemon reads on.
	w := &ocFixture{t: t, path: p, db: openWriter(t, p)}
	w.user("ses_1", "msg_3", 30, "again")
	w.assistant("ses_1", "msg_4", 40, true, textPart("and again"))
	s = openSource(t, p, Options{})
	if got := messages(t, s, "ses_1", Watermark{}, 0); len(got) != 4 {
		t.Fatalf("after OpenCode wrote again: %v", brief(got))
	}
}

// TestOpenCodeConcurrentWriter: OpenCode keeps writing (and holding write transactions) while
// the daemon reads. Reads neither fail nor block, see only committed rows, and catch up.
func TestOpenCodeConcurrentWriter(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 1)
	s := openSource(t, f.path, Options{BusyTimeout: 100 * time.Millisecond})
	ctx := context.Background()

	// A write transaction left open: a WAL reader is not blocked and sees the last commit.
	tx, err := f.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data)
		VALUES ('msg_open', 'ses_1', 5, 5, '{"role":"user"}')`); err != nil {
		t.Fatal(err)
	}
	if got := messages(t, s, "ses_1", Watermark{}, 0); len(got) != 0 {
		t.Fatalf("saw an uncommitted row: %v", brief(got))
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}

	const turns = 50
	done := make(chan error, 1)
	go func() {
		for i := range turns {
			at := int64(10 + 10*i)
			f.user("ses_1", fmt.Sprintf("msg_%04d_u", i), at, fmt.Sprintf("question %d", i))
			f.assistant("ses_1", fmt.Sprintf("msg_%04d_v", i), at+5, true, textPart(fmt.Sprintf("answer %d", i)))
			f.exec(`UPDATE session SET time_updated = ? WHERE id = 'ses_1'`, at+5)
		}
		done <- nil
	}()
	var mark Watermark
	var got []Message
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < 2*turns {
		if time.Now().After(deadline) {
			t.Fatalf("read %d of %d messages before the deadline", len(got), 2*turns)
		}
		if _, err := s.Changed(ctx, time.Time{}); err != nil {
			t.Fatal(err)
		}
		msgs, err := s.Messages(ctx, "ses_1", mark, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) > 0 {
			mark = msgs[len(msgs)-1].Mark
			got = append(got, msgs...)
		}
	}
	<-done
	for i, m := range got {
		want := fmt.Sprintf("question %d", i/2)
		if i%2 == 1 {
			want = fmt.Sprintf("answer %d", i/2)
		}
		if m.Text != want {
			t.Fatalf("message %d = %q, want %q", i, m.Text, want)
		}
	}
}
