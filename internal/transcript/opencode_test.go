package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func openSource(t testing.TB, path string, opts Options) *OpenCode {
	t.Helper()
	s, err := OpenOpenCode(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func messages(t testing.TB, s Source, id string, after Watermark, limit int) []Message {
	t.Helper()
	msgs, err := s.Messages(context.Background(), id, after, limit)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func changed(t testing.TB, s Source, since time.Time) []Session {
	t.Helper()
	ss, err := s.Changed(context.Background(), since)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// brief renders messages as "role: text [tool: input] (summary)" lines for comparisons.
func brief(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		line := m.Role + ": " + m.Text
		for _, tu := range m.Tools {
			line += " [" + tu.Name + ": " + tu.Input + "]"
		}
		if m.Summary {
			line += " (summary)"
		}
		out = append(out, line)
	}
	return out
}

func sessionIDs(ss []Session) []string {
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	return ids
}

func wantLines(t testing.TB, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestOpenCodeUserAndAssistantText(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 100)
	f.message("ses_1", "msg_1", 10, obj{"role": "user", "time": obj{"created": 10}})
	f.part("ses_1", "msg_1", "prt_1", 10, obj{"type": "text", "text": "Called the Read tool", "synthetic": true})
	f.part("ses_1", "msg_1", "prt_2", 10, obj{"type": "text", "text": "IGNORED-TEXT", "ignored": true})
	f.part("ses_1", "msg_1", "prt_3", 10, obj{"type": "file", "mime": "text/plain", "url": "file:///w/x"})
	f.part("ses_1", "msg_1", "prt_4", 10, obj{"type": "text", "text": "  I prefer tabs.  "})
	f.part("ses_1", "msg_1", "prt_5", 10, obj{"type": "text", "text": "Really."})
	start, finish := stepParts()
	f.assistant("ses_1", "msg_2", 20, true, start,
		obj{"type": "reasoning", "text": "REASONING-TEXT"},
		textPart("Let me look."),
		toolPart("bash", obj{"command": "cat   go.mod\n| head", "description": "Show"}, "SECRET-OUTPUT-1234"),
		toolPart("read", obj{"filePath": "/w/main.go"}, "package main // OUTPUT-5678"),
		toolPart("write", obj{"filePath": "/w/x.go", "content": strings.Repeat("CONTENT ", 200)}, ""),
		toolPart("mcp_thing", obj{"n": 1}, "x"),
		textPart("Done."), finish)

	msgs := messages(t, openSource(t, f.path, Options{}), "ses_1", Watermark{}, 0)
	wantLines(t, brief(msgs), []string{
		"user: I prefer tabs.\nReally.",
		"assistant: Let me look.\nDone. [bash: cat go.mod | head] [read: /w/main.go] [write: /w/x.go] [mcp_thing: ]",
	})
	for _, m := range msgs {
		all := m.Text + jsonText(t, m.Tools)
		for _, bad := range []string{"SECRET-OUTPUT-1234", "OUTPUT-5678", "CONTENT", "REASONING-TEXT", "IGNORED-TEXT", "Called the Read"} {
			if strings.Contains(all, bad) {
				t.Errorf("message %s contains %q", m.ID, bad)
			}
		}
	}
	if msgs[0].Mark != (Watermark{Time: 10, ID: "msg_1"}) || msgs[1].Time.UnixMilli() != 20 || msgs[0].ID != "msg_1" {
		t.Errorf("marks: %+v %+v", msgs[0].Mark, msgs[1])
	}
}

func TestOpenCodeToolInputShortened(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 100)
	f.user("ses_1", "msg_1", 10, "go")
	f.assistant("ses_1", "msg_2", 20, true, toolPart("bash", obj{"command": strings.Repeat("echo 世界 ", 100)}, "out"))
	msgs := messages(t, openSource(t, f.path, Options{}), "ses_1", Watermark{}, 0)
	in := msgs[1].Tools[0].Input
	if len(in) > MaxToolInput || !strings.HasSuffix(in, "…") || !strings.HasPrefix(in, "echo 世界 echo") {
		t.Errorf("input %q (%d bytes)", in, len(in))
	}
}

func TestOpenCodeStopsAtUnfinishedAssistant(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 100)
	f.user("ses_1", "msg_1", 10, "first")
	f.assistant("ses_1", "msg_2", 20, true, textPart("reply one"))
	f.user("ses_1", "msg_3", 30, "second")
	f.assistant("ses_1", "msg_4", 40, false, textPart("streaming…"))
	s := openSource(t, f.path, Options{})

	got := messages(t, s, "ses_1", Watermark{}, 0)
	wantLines(t, brief(got), []string{"user: first", "assistant: reply one"})
	if ss := changed(t, s, time.Time{}); len(ss) != 1 || ss[0].Finished || ss[0].LastUserText != "second" {
		t.Fatalf("sessions: %+v", ss)
	}
	mark := got[len(got)-1].Mark
	if more := messages(t, s, "ses_1", mark, 0); len(more) != 0 {
		t.Fatalf("past the unfinished reply: %v", brief(more))
	}

	// The reply finishes: OpenCode rewrites the message row with time.completed.
	f.exec(`UPDATE message SET time_updated = 45, data = json_set(data, '$.time.completed', 45) WHERE id = 'msg_4'`)
	f.exec(`UPDATE part SET data = json_set(data, '$.text', 'reply two') WHERE message_id = 'msg_4'`)
	wantLines(t, brief(messages(t, s, "ses_1", mark, 0)), []string{"user: second", "assistant: reply two"})
	ss := changed(t, s, time.UnixMilli(45))
	if len(ss) != 1 || !ss[0].Finished || ss[0].Updated.UnixMilli() != 100 {
		t.Fatalf("sessions after finish: %+v", ss)
	}
}

func TestOpenCodeErroredAssistantIsFinished(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 15)
	f.user("ses_1", "msg_1", 10, "hello")
	f.message("ses_1", "msg_2", 20, obj{"role": "assistant", "time": obj{"created": 20},
		"error": obj{"name": "MessageAbortedError", "data": obj{"message": "aborted"}}})
	f.part("ses_1", "msg_2", "prt_x", 20, textPart("partial answer"))
	f.user("ses_1", "msg_3", 30, "after the error")
	f.assistant("ses_1", "msg_4", 40, false)
	s := openSource(t, f.path, Options{})
	wantLines(t, brief(messages(t, s, "ses_1", Watermark{}, 0)), []string{"user: hello", "assistant: partial answer"})
}

func TestOpenCodeWatermarkTies(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 100)
	// Three messages share one millisecond; ids decide. A later message has a smaller id, as when
	// OpenCode's ids wrap: time decides.
	f.user("ses_1", "msg_b", 10, "b")
	f.user("ses_1", "msg_a", 10, "a")
	f.assistant("ses_1", "msg_c", 10, true, textPart("c"))
	f.user("ses_1", "msg_0", 11, "zero")
	f.assistant("ses_1", "msg_1", 12, true, textPart("one"))
	s := openSource(t, f.path, Options{})

	all := messages(t, s, "ses_1", Watermark{}, 0)
	wantLines(t, brief(all), []string{"user: a", "user: b", "assistant: c", "user: zero", "assistant: one"})
	wantLines(t, brief(messages(t, s, "ses_1", all[0].Mark, 0)), []string{"user: b", "assistant: c", "user: zero", "assistant: one"})
	wantLines(t, brief(messages(t, s, "ses_1", all[2].Mark, 0)), []string{"user: zero", "assistant: one"})
	wantLines(t, brief(messages(t, s, "ses_1", all[1].Mark, 2)), []string{"assistant: c", "user: zero"})
	if got := messages(t, s, "ses_1", all[4].Mark, 0); len(got) != 0 {
		t.Errorf("after the last mark: %v", brief(got))
	}
}

func TestOpenCodeLimitSkipsEmptyMessages(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 100)
	f.user("ses_1", "msg_1", 10, "one")
	f.assistant("ses_1", "msg_2", 20, true) // no parts: not returned, not counted
	f.user("ses_1", "msg_3", 30, "two")
	f.assistant("ses_1", "msg_4", 40, true, textPart("three"))
	s := openSource(t, f.path, Options{})
	wantLines(t, brief(messages(t, s, "ses_1", Watermark{}, 2)), []string{"user: one", "user: two"})
	wantLines(t, brief(messages(t, s, "ses_1", Watermark{}, 1)), []string{"user: one"})
}

func TestOpenCodeDeletedSession(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_1", "", "/w", 100)
	f.user("ses_1", "msg_1", 10, "one")
	f.assistant("ses_1", "msg_2", 20, true, textPart("two"))
	s := openSource(t, f.path, Options{})
	if got := messages(t, s, "ses_1", Watermark{}, 0); len(got) != 2 {
		t.Fatalf("before delete: %v", brief(got))
	}
	f.exec(`DELETE FROM part WHERE session_id = 'ses_1'`)
	f.exec(`DELETE FROM message WHERE session_id = 'ses_1'`)
	f.exec(`DELETE FROM session WHERE id = 'ses_1'`)
	_, err := s.Messages(context.Background(), "ses_1", Watermark{}, 0)
	if !errors.Is(err, ErrSessionGone) {
		t.Fatalf("err = %v, want ErrSessionGone", err)
	}
	if _, err := s.Messages(context.Background(), "ses_never", Watermark{}, 0); !errors.Is(err, ErrSessionGone) {
		t.Fatalf("unknown session: err = %v", err)
	}
	if ss := changed(t, s, time.Time{}); len(ss) != 0 {
		t.Fatalf("deleted session listed: %v", sessionIDs(ss))
	}
}

func TestOpenCodeChanged(t *testing.T) {
	f := newOCFixture(t)
	f.session("ses_old", "", "/w/a", 100)
	f.user("ses_old", "msg_1", 90, "remember that I use tabs")
	f.assistant("ses_old", "msg_2", 95, true, textPart("ok"))
	f.session("ses_new", "", "/w/b", 200)
	f.user("ses_new", "msg_3", 150, "hi")
	f.session("ses_child", "ses_new", "/w/b", 300)
	f.session("ses_mine", "", "/state/memoryd/llm", 400)
	f.session("ses_late", "", "/w/c", 50) // its message was updated after the session row
	f.user("ses_late", "msg_4", 40, "x")
	f.assistant("ses_late", "msg_5", 45, true)
	f.exec(`UPDATE message SET time_updated = 250 WHERE id = 'msg_5'`)
	s := openSource(t, f.path, Options{SkipDirs: []string{"/state/memoryd/"}})

	all := changed(t, s, time.Time{})
	wantLines(t, sessionIDs(all), []string{"ses_old", "ses_new", "ses_late"})
	if !all[0].Finished || all[0].LastUserText != "remember that I use tabs" || all[0].Title != "title of ses_old" {
		t.Errorf("ses_old: %+v", all[0])
	}
	if all[1].Finished || all[1].LastUserText != "hi" {
		t.Errorf("ses_new: %+v", all[1])
	}
	if all[2].Updated.UnixMilli() != 250 || !all[2].Finished {
		t.Errorf("ses_late: %+v", all[2])
	}
	wantLines(t, sessionIDs(changed(t, s, time.UnixMilli(200))), []string{"ses_new", "ses_late"})
	wantLines(t, sessionIDs(changed(t, s, time.UnixMilli(201))), []string{"ses_late"})
	if got := changed(t, s, time.UnixMilli(251)); len(got) != 0 {
		t.Errorf("since after everything: %v", sessionIDs(got))
	}

	// A late message change is found only within lateUpdateWindow of the session row's change.
	day := lateUpdateWindow.Milliseconds()
	f.exec(`UPDATE message SET time_updated = ? WHERE id = 'msg_5'`, 50+day)
	wantLines(t, sessionIDs(changed(t, s, time.UnixMilli(50+day))), []string{"ses_late"})
	f.exec(`UPDATE message SET time_updated = ? WHERE id = 'msg_5'`, 51+day)
	if got := changed(t, s, time.UnixMilli(51+day)); len(got) != 0 {
		t.Errorf("late change outside the window: %v", sessionIDs(got))
	}
	if got := changed(t, s, time.Time{}); got[len(got)-1].ID != "ses_late" || got[len(got)-1].Updated.UnixMilli() != 51+day {
		t.Errorf("a full listing misses the late change: %+v", got)
	}
}

func TestOpenOpenCodeRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "opencode.db")
	w := openWriter(t, p)
	if _, err := w.Exec(`CREATE TABLE other (x)`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenOpenCode(p, Options{}); err == nil {
		t.Fatal("opened a database without OpenCode's tables")
	}
	if _, err := OpenOpenCode(filepath.Join(dir, "missing.db"), Options{}); err == nil {
		t.Fatal("opened a missing database")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Fatalf("a missing database was created: %v", err)
	}
}

// TestOpenCodeQueryPlans: every query reaches messages and parts through OpenCode's own indexes
// (the database is read-only: no index can be added). Only the session table is scanned.
func TestOpenCodeQueryPlans(t *testing.T) {
	s := openSource(t, newOCFixture(t).path, Options{})
	for _, q := range []struct {
		name, query string
		uses        []string
	}{
		{"changed", changedQuery, []string{"SCAN s", "message_session_time_created_id_idx"}},
		{"tail", tailQuery, []string{"message_session_time_created_id_idx"}},
		{"exists", existsQuery, []string{"sqlite_autoindex_session_1"}},
		{"meta", metaQuery, []string{"message_session_time_created_id_idx (session_id=? AND (time_created,id)>(?,?))"}},
		{"parts", partsQuery, []string{"message_session_time_created_id_idx", "part_message_id_id_idx (message_id=?)"}},
		{"msgParts", msgPartsQuery, []string{"part_message_id_id_idx (message_id=?)"}},
	} {
		rows, err := s.db.Query("EXPLAIN QUERY PLAN "+q.query, 1, 2, 3, 4, 5)
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		all := strings.Join(plan, "\n")
		for _, u := range q.uses {
			if !strings.Contains(all, u) {
				t.Errorf("%s: plan does not use %q:\n%s", q.name, u, all)
			}
		}
		for _, bad := range []string{"SCAN m", "SCAN p", "SCAN message", "SCAN part", "AUTOMATIC"} {
			if strings.Contains(all, bad) {
				t.Errorf("%s: plan has %q:\n%s", q.name, bad, all)
			}
		}
	}
}
