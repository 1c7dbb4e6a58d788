package extractor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/transcript"
)

// Crash safety, blocked repositories, hand edits, deleted sessions, dry runs
// and failures: the watermark moves only after a commit, and a re-run
// creates no duplicate.

// TestExtractCrashBetweenCommitAndWatermark: a pass whose watermark was lost
// (the process died after the commit) runs again and creates nothing new,
// whether the model repeats itself or renames the memory.
func TestExtractCrashBetweenCommitAndWatermark(t *testing.T) {
	for _, name := range []string{"prefers-tabs", "tabs-for-indentation"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.db.session("ses_1", "/w")
			e.db.turn("ses_1", "Remember: tabs, always.", "Noted.")
			e.llm.set(answerWith(mem("create", "feedback", "prefers-tabs", "Prefers tabs over spaces", tabsBody)))
			if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err != nil {
				t.Fatal(err)
			}
			head := git(t, e.notes, "rev-parse", "HEAD")
			os.Remove(filepath.Join(e.state, state.WatermarksFile)) // the crash: commit made, watermark never written

			e.llm.set(answerWith(mem("create", "feedback", name, "Prefers tabs over spaces", tabsBody)))
			res, err := e.x.Extract(ctx, "opencode", "ses_1")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Changes) != 0 || len(e.files()) != 1 || git(t, e.notes, "rev-parse", "HEAD") != head {
				t.Errorf("re-run wrote %+v; files %v", res.Changes, e.files())
			}
			if len(e.llm.calls()) != 2 {
				t.Errorf("%d calls", len(e.llm.calls()))
			}
			if _, ok, _ := e.x.Watermark("opencode", "ses_1"); !ok {
				t.Error("watermark not advanced by the re-run")
			}
		})
	}
}

// TestExtractWatermarkOnlyAfterCommit: a pass that cannot commit leaves the
// watermark alone, and the next pass sends the same messages again.
func TestExtractWatermarkOnlyAfterCommit(t *testing.T) {
	cases := map[string]struct {
		block   func(e *env) func()
		wantErr error
	}{
		"index.lock": {func(e *env) func() {
			p := filepath.Join(e.notes, ".git", "index.lock")
			os.WriteFile(p, nil, 0o644)
			return func() { os.Remove(p) }
		}, gitstore.ErrBusy},
		"merge in progress": {func(e *env) func() {
			p := filepath.Join(e.notes, ".git", "MERGE_HEAD")
			os.WriteFile(p, []byte(git(e.t, e.notes, "rev-parse", "HEAD")+"\n"), 0o644)
			return func() { os.Remove(p) }
		}, ErrInOperation},
		"write lock held": {func(e *env) func() {
			l, err := state.TryLock(e.state, state.WriteLock, "test")
			if err != nil {
				e.t.Fatal(err)
			}
			return func() { l.Unlock() }
		}, gitstore.ErrBusy},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.db.session("ses_1", "/w")
			e.db.turn("ses_1", "Remember: tabs, always.", "Noted.")
			e.llm.set(answerWith(mem("create", "feedback", "prefers-tabs", "Prefers tabs over spaces", tabsBody)))
			unblock := c.block(e)
			_, err := e.x.Extract(ctx, "opencode", "ses_1")
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err %v, want %v", err, c.wantErr)
			}
			if _, ok, _ := e.x.Watermark("opencode", "ses_1"); ok {
				t.Fatal("watermark advanced without a commit")
			}
			if len(e.files()) != 0 {
				t.Fatalf("files written while blocked: %v", e.files())
			}
			unblock()
			res, err := e.x.Extract(ctx, "opencode", "ses_1")
			if err != nil || len(res.Changes) != 1 || res.Sent != 2 {
				t.Fatalf("retry: %+v %v", res, err)
			}
		})
	}
}

// TestExtractPlansWithoutTheWriteLock: the model is asked while another
// writer holds the write lock; the pass takes it only to write, once the
// model answered and the writer let go.
func TestExtractPlansWithoutTheWriteLock(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "Remember: tabs, always.", "Noted.")
	l, err := state.TryLock(e.state, state.WriteLock, "pid 1, memoryd add")
	if err != nil {
		t.Fatal(err)
	}
	e.llm.set(func(llm.Request) (string, error) {
		if !state.Held(e.state, state.WriteLock) {
			t.Error("the write lock is free during the model call; the test holds it")
		}
		l.Unlock()
		return js(obj{"memories": []obj{mem("create", "feedback", "prefers-tabs", "Prefers tabs over spaces", tabsBody)}}), nil
	})
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil || len(res.Changes) != 1 || res.Commit == "" {
		t.Fatalf("%+v %v", res, err)
	}
	if _, ok, _ := e.x.Watermark("opencode", "ses_1"); !ok {
		t.Error("watermark not advanced")
	}
}

func TestExtractHandEditDuringLLMCall(t *testing.T) {
	e := newEnv(t)
	e.writeByModel("user-editor.md", memoryFile("user", "editor", "Editor", "Uses helix as the editor everywhere."))
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "I moved to zed for editing.", "Noted.")
	e.llm.set(func(llm.Request) (string, error) {
		e.write("user-editor.md", memoryFile("user", "editor", "Editor", "Uses helix, edited by hand meanwhile."))
		return js(obj{"memories": []obj{mem("update", "user", "editor", "Editor is zed", "Uses zed as the editor everywhere.")}}), nil
	})
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); !errors.Is(err, ErrChangedOnDisk) {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(e.read("user-editor.md"), "edited by hand") {
		t.Fatal("the hand edit was overwritten")
	}
	if _, ok, _ := e.x.Watermark("opencode", "ses_1"); ok {
		t.Fatal("watermark advanced")
	}
}

func TestExtractDeletedSession(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "Remember: tabs, always.", "Noted.")
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err != nil {
		t.Fatal(err)
	}
	e.db.deleteSession("ses_1")
	_, err := e.x.Extract(ctx, "opencode", "ses_1")
	if !errors.Is(err, ErrNothingToDo) || !errors.Is(err, transcript.ErrSessionGone) {
		t.Fatalf("err %v", err)
	}
	if _, ok, _ := e.x.Watermark("opencode", "ses_1"); ok {
		t.Error("watermark kept for a deleted session")
	}
	if n := len(e.llm.calls()); n != 1 {
		t.Errorf("%d calls", n)
	}
}

func TestChangedPrunesWatermarksOfVanishedSessions(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/home/a")
	e.db.session("ses_2", "/home/b")
	e.db.turn("ses_1", "Remember: tabs, always.", "Noted.")
	e.db.turn("ses_2", "Remember: I like fish.", "Noted.")
	for _, id := range []string{"ses_1", "ses_2"} {
		if _, err := e.x.Extract(ctx, "opencode", id); err != nil {
			t.Fatal(err)
		}
	}
	editMarks(e.state, func(m watermarks) { m["claude/other"] = transcript.Watermark{Offset: 5} })
	e.db.deleteSession("ses_2")
	list, err := e.x.Changed(ctx, time.Time{})
	if err != nil || len(list) != 1 || list[0].ID != "ses_1" || list[0].Dir != "/home/a" {
		t.Fatalf("%+v %v", list, err)
	}
	m, _ := loadMarks(e.state)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(keys, []string{"claude/other", "opencode/ses_1"}) {
		t.Errorf("watermarks after a full listing: %v", keys)
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "Remember: tabs, always.", "Noted.")
	e.llm.set(answerWith(mem("create", "feedback", "prefers-tabs", "Prefers tabs over spaces", tabsBody)))
	head := git(t, e.notes, "rev-parse", "HEAD")
	res, err := e.x.DryRun(ctx, "opencode", "ses_1")
	if err != nil || len(res.Changes) != 1 || !strings.Contains(string(res.Changes[0].Data), "Use tabs") {
		t.Fatalf("%+v %v", res, err)
	}
	if len(e.files()) != 0 || git(t, e.notes, "rev-parse", "HEAD") != head {
		t.Error("dry run wrote")
	}
	if _, err := os.Stat(filepath.Join(e.state, state.WatermarksFile)); !os.IsNotExist(err) {
		t.Error("dry run wrote watermarks")
	}
}

func TestExtractLLMFailureKeepsWatermark(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "Remember: tabs, always.", "Noted.")
	e.llm.set(func(llm.Request) (string, error) { return "", errors.New("upstream 500") })
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err == nil {
		t.Fatal("no error")
	}
	e.llm.set(func(llm.Request) (string, error) { return "Sure! Here you go: not json", nil })
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err == nil {
		t.Fatal("no error for a non-JSON answer")
	}
	if _, ok, _ := e.x.Watermark("opencode", "ses_1"); ok {
		t.Fatal("watermark advanced after failures")
	}
}

func TestExtractUnknownSource(t *testing.T) {
	e := newEnv(t)
	if _, err := e.x.Extract(ctx, "nope", "x"); err == nil || errors.Is(err, ErrNothingToDo) {
		t.Fatalf("err %v", err)
	}
}

// BenchmarkExtractNothingNew is the cost of the daemon asking about a session
// with nothing after its watermark: a read of the database and the
// watermarks, and no LLM call.
func BenchmarkExtractNothingNew(b *testing.B) {
	e := newEnv(b)
	e.db.session("ses_1", "/w")
	for i := range 200 {
		e.db.turn("ses_1", fmt.Sprintf("message %d", i), "reply")
	}
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.x.Extract(ctx, "opencode", "ses_1"); !errors.Is(err, ErrNothingToDo) {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n := len(e.llm.calls()); n != 1 {
		b.Fatalf("%d LLM calls, want the first pass's only", n)
	}
	b.ReportMetric(float64(len(e.llm.calls())-1)/float64(b.N), "llm-calls/op")
}
