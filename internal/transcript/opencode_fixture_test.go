package transcript

import (
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// schemaFile is the schema a real OpenCode created (see the file's header).
const schemaFile = "testdata/opencode-1.18.33-schema.sql"

// ocFixture writes an OpenCode database the way OpenCode does (WAL mode, the real schema) through
// its own read-write connection.
type ocFixture struct {
	t    testing.TB
	path string
	db   *sql.DB
}

func newOCFixture(t testing.TB) *ocFixture {
	t.Helper()
	return openOCFixture(t, filepath.Join(t.TempDir(), "opencode.db"))
}

// openOCFixture creates the database at path with the real schema.
func openOCFixture(t testing.TB, path string) *ocFixture {
	t.Helper()
	schema, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	f := &ocFixture{t: t, path: path, db: openWriter(t, path)}
	f.exec(string(schema))
	f.exec(`INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES ('global', '/', 'git', 1, 1, '[]')`)
	return f
}

// openWriter opens a read-write connection like OpenCode's: WAL, busy timeout. Automatic
// checkpoints are off so committed rows stay in the -wal file, where only a reader that honours
// the WAL finds them.
func openWriter(t testing.TB, path string) *sql.DB {
	t.Helper()
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "wal_autocheckpoint(0)")
	q.Add("_pragma", "synchronous(NORMAL)")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func (f *ocFixture) exec(q string, args ...any) {
	f.t.Helper()
	if _, err := f.db.Exec(q, args...); err != nil {
		f.t.Fatalf("%v\n%s", err, q)
	}
}

func jsonText(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type obj = map[string]any

// session inserts a session row.
func (f *ocFixture) session(id, parent, dir string, updated int64) {
	f.t.Helper()
	var p any
	if parent != "" {
		p = parent
	}
	f.exec(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
		VALUES (?, 'global', ?, 'slug', ?, 'title of '||?, '1.18.33', ?, ?)`, id, p, dir, id, updated, updated)
}

// message inserts a message row; its data gets the role and time as OpenCode writes them.
func (f *ocFixture) message(session, id string, created int64, data obj) {
	f.t.Helper()
	f.exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
		id, session, created, created, jsonText(f.t, data))
}

// part inserts a part row.
func (f *ocFixture) part(session, message, id string, created int64, data obj) {
	f.t.Helper()
	f.exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
		id, message, session, created, created, jsonText(f.t, data))
}

// user inserts a user message with one text part per text.
func (f *ocFixture) user(session, id string, created int64, texts ...string) {
	f.t.Helper()
	f.message(session, id, created, obj{"role": "user", "time": obj{"created": created}, "agent": "build",
		"model": obj{"providerID": "fake", "modelID": "fake-model"}, "summary": obj{"diffs": []any{}}})
	for i, text := range texts {
		f.part(session, id, partID(id, i), created, obj{"type": "text", "text": text})
	}
}

// assistant inserts an assistant message, finished (time.completed set) or not, with the parts.
func (f *ocFixture) assistant(session, id string, created int64, finished bool, parts ...obj) {
	f.t.Helper()
	tm := obj{"created": created}
	if finished {
		tm["completed"] = created + 500
	}
	f.message(session, id, created, obj{"role": "assistant", "parentID": "", "mode": "build", "agent": "build",
		"path": obj{"cwd": "/w", "root": "/w"}, "cost": 0, "modelID": "fake-model", "providerID": "fake",
		"time": tm, "finish": "stop"})
	for i, p := range parts {
		f.part(session, id, partID(id, i), created, p)
	}
}

func partID(msg string, i int) string { return "prt_" + msg + "_" + string(rune('a'+i)) }

func textPart(text string) obj {
	return obj{"type": "text", "text": text, "time": obj{"start": 1, "end": 2}}
}

func toolPart(tool string, input obj, output string) obj {
	return obj{"type": "tool", "tool": tool, "callID": "call_1", "state": obj{"status": "completed",
		"input": input, "output": output, "metadata": obj{"output": output, "exit": 0}, "title": tool,
		"time": obj{"start": 1, "end": 2}}}
}

func stepParts() (obj, obj) {
	return obj{"type": "step-start", "snapshot": "4b825dc6"},
		obj{"type": "step-finish", "reason": "stop", "snapshot": "4b825dc6", "cost": 0,
			"tokens": obj{"total": 15, "input": 10, "output": 5}}
}
