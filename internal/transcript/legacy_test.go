package transcript

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// realRowsDB loads the rows a real OpenCode wrote into a fixture database.
func realRowsDB(t *testing.T) *ocFixture {
	t.Helper()
	f := newOCFixture(t)
	f.exec(`DELETE FROM project`)
	for _, name := range []string{"testdata/opencode-1.18.33-rows.sql", "testdata/opencode-1.18.33-write.sql"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f.exec(string(b))
	}
	return f
}

// exportLegacy writes a database's sessions, messages and parts in the legacy storage layout,
// the reverse of OpenCode's JSON-to-SQLite migration.
func exportLegacy(t *testing.T, f *ocFixture, storage string) {
	t.Helper()
	write := func(rel string, data string, extra obj) {
		var o obj
		if err := json.Unmarshal([]byte(data), &o); err != nil {
			t.Fatal(err)
		}
		for k, v := range extra {
			o[k] = v
		}
		p := filepath.Join(storage, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(jsonText(t, o)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := f.db.Query(`SELECT id, project_id, coalesce(parent_id, ''), directory, title, time_created, time_updated FROM session`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, project, parent, dir, title string
		var created, updated int64
		if err := rows.Scan(&id, &project, &parent, &dir, &title, &created, &updated); err != nil {
			t.Fatal(err)
		}
		s := obj{"id": id, "projectID": project, "directory": dir, "title": title, "version": "1.0.0",
			"time": obj{"created": created, "updated": updated}}
		if parent != "" {
			s["parentID"] = parent
		}
		write("session/"+project+"/"+id+".json", jsonText(t, s), nil)
	}
	rows.Close()
	rows, err = f.db.Query(`SELECT id, session_id, data FROM message`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, sid, data string
		if err := rows.Scan(&id, &sid, &data); err != nil {
			t.Fatal(err)
		}
		write("message/"+sid+"/"+id+".json", data, obj{"id": id, "sessionID": sid})
	}
	rows.Close()
	rows, err = f.db.Query(`SELECT id, message_id, session_id, data FROM part`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, mid, sid, data string
		if err := rows.Scan(&id, &mid, &sid, &data); err != nil {
			t.Fatal(err)
		}
		write("part/"+mid+"/"+id+".json", data, obj{"id": id, "messageID": mid, "sessionID": sid})
	}
	rows.Close()
}

// TestLegacyMatchesDatabase: the same real sessions read from legacy files and from the database
// give the same sessions and messages.
func TestLegacyMatchesDatabase(t *testing.T) {
	f := realRowsDB(t)
	storage := filepath.Join(t.TempDir(), "storage")
	exportLegacy(t, f, storage)
	for _, opts := range []Options{{}, {IncludeSubagents: true}} {
		db := openSource(t, f.path, opts)
		legacy := NewOpenCodeLegacy(storage, opts)
		want, got := changed(t, db, time.Time{}), changed(t, legacy, time.Time{})
		ids := func(ss []Session) []string { x := sessionIDs(ss); slices.Sort(x); return x }
		wantLines(t, ids(got), ids(want))
		for _, w := range want {
			i := slices.IndexFunc(got, func(s Session) bool { return s.ID == w.ID })
			g := got[i]
			if g.Finished != w.Finished || g.LastUserText != w.LastUserText || g.ParentID != w.ParentID || g.Dir != w.Dir {
				t.Errorf("%s: legacy %+v, database %+v", w.ID, g, w)
			}
			wantLines(t, brief(messages(t, legacy, w.ID, Watermark{}, 0)), brief(messages(t, db, w.ID, Watermark{}, 0)))
		}
	}
}

func TestLegacyUnfinishedAndGone(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 100)
	f.user("ses_1", "msg_1", 10, "first")
	f.assistant("ses_1", "msg_2", 20, true, textPart("reply one"))
	f.user("ses_1", "msg_3", 30, "second")
	f.assistant("ses_1", "msg_4", 40, false, textPart("streaming"))
	f.user("ses_1", "msg_5", 50, "third")
	f.assistant("ses_1", "msg_6", 60, true, textPart("reply three"))
	storage := filepath.Join(t.TempDir(), "storage")
	exportLegacy(t, f, storage)
	s := NewOpenCodeLegacy(storage, Options{})
	ctx := context.Background()

	msgs := messages(t, s, "ses_1", Watermark{}, 0)
	wantLines(t, brief(msgs), []string{"user: first", "assistant: reply one"})
	if ss := changed(t, s, time.Time{}); len(ss) != 1 || !ss[0].Finished || ss[0].LastUserText != "third" {
		t.Errorf("sessions: %+v", ss)
	}
	// A message file being written does not parse: it is passed over.
	if err := os.WriteFile(filepath.Join(storage, "message", "ses_1", "msg_4.json"), []byte(`{"id":"msg_4","role":"assis`), 0o644); err != nil {
		t.Fatal(err)
	}
	wantLines(t, brief(messages(t, s, "ses_1", msgs[1].Mark, 1)), []string{"user: second"})

	if err := os.RemoveAll(filepath.Join(storage, "session")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Messages(ctx, "ses_1", Watermark{}, 0); !errors.Is(err, ErrSessionGone) {
		t.Errorf("deleted session: %v", err)
	}
	if _, err := s.Messages(ctx, "../ses_1", Watermark{}, 0); err == nil || errors.Is(err, ErrSessionGone) {
		t.Errorf("bad id: %v", err)
	}
}
