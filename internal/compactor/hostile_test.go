package compactor

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestHostileAnswers feeds the pass answers that must not change anything:
// every file, and HEAD, stay as they were.
func TestHostileAnswers(t *testing.T) {
	del := func(file string) llmtest.Reply {
		return plan(map[string]any{"op": "delete", "file": file, "reason": "hostile"})
	}
	deleteAll := func() llmtest.Reply {
		var ops []map[string]any
		for name := range store() {
			ops = append(ops, map[string]any{"op": "delete", "file": name, "reason": "clean slate"})
		}
		return plan(ops...)
	}
	supersedeAll := func() llmtest.Reply {
		var ops []map[string]any
		for name := range store() {
			ops = append(ops, map[string]any{"op": "supersede", "file": name, "by": "project-new-deadline.md", "reason": "clean slate"})
		}
		return plan(ops...)
	}
	cases := []struct {
		name    string
		reply   func(n int) llmtest.Reply // n: 1-based attempt
		timeout time.Duration
		wantErr error  // nil: ErrNothingToDo
		errText string // part of the error
		skip    string // part of the skip reason
	}{
		{name: "parent path", reply: func(int) llmtest.Reply { return del("../README.md") }, skip: "not a clean path inside the memory folder"},
		{name: "parent path in merge", reply: func(int) llmtest.Reply {
			return plan(map[string]any{"op": "merge", "files": []string{"user-shell.md", "../x.md"},
				"into": map[string]any{"type": "user", "name": "shell", "description": "d", "body": "b"}})
		}, skip: "not a clean path"},
		{name: "absolute path", reply: func(int) llmtest.Reply { return del("/etc/passwd") }, skip: "absolute path"},
		{name: "index", reply: func(int) llmtest.Reply { return del("MEMORY.md") }, skip: "reserved file"},
		{name: "protocol rewrite", reply: func(int) llmtest.Reply {
			return plan(map[string]any{"op": "rewrite", "file": "PROTOCOL.md", "body": "anything goes"})
		}, skip: "reserved file"},
		{name: "readonly", reply: func(int) llmtest.Reply { return del("project-freeze.md") }, skip: "readonly"},
		{name: "readonly merge", reply: func(int) llmtest.Reply {
			return plan(map[string]any{"op": "merge", "files": []string{"project-freeze.md", "project-new-deadline.md"},
				"into": map[string]any{"type": "project", "name": "x", "description": "d", "body": "b"}})
		}, skip: "readonly"},
		{name: "missing file", reply: func(int) llmtest.Reply { return del("user-nobody.md") }, skip: "no such memory file"},
		{name: "merge onto another file", reply: func(int) llmtest.Reply {
			return plan(map[string]any{"op": "merge", "files": []string{"user-editor-a.md", "user-editor-b.md"},
				"into": map[string]any{"type": "user", "name": "shell", "description": "d", "body": "b"}})
		}, skip: "merge target exists"},
		{name: "invalid name", reply: func(int) llmtest.Reply {
			return plan(map[string]any{"op": "merge", "files": []string{"user-editor-a.md", "user-editor-b.md"},
				"into": map[string]any{"type": "user", "name": "../../evil", "description": "d", "body": "b"}})
		}, skip: "invalid name"},
		{name: "flag without a note", reply: func(int) llmtest.Reply {
			return plan(map[string]any{"op": "flag", "files": []string{"user-editor-a.md", "user-editor-b.md"}, "note": ""})
		}, skip: "flag without a note"},
		{name: "unknown op", reply: func(int) llmtest.Reply { return plan(map[string]any{"op": "rename", "file": "user-shell.md"}) }, skip: `unknown op "rename"`},
		{name: "empty rewrite", reply: func(int) llmtest.Reply {
			return plan(map[string]any{"op": "rewrite", "file": "user-shell.md", "body": "  "})
		}, skip: "rewrite changes nothing"},
		{name: "delete every file", reply: func(int) llmtest.Reply { return deleteAll() }, skip: "compaction never deletes a fact"},
		{name: "supersede every file", reply: func(int) llmtest.Reply { return supersedeAll() }, wantErr: ErrRefused, skip: "plan refused"},
		{name: "invalid JSON", reply: func(int) llmtest.Reply { return llmtest.Text(`{"ops": [{"op": "delete", "file": `) }, wantErr: ErrBadPlan},
		{name: "prose", reply: func(int) llmtest.Reply { return llmtest.Text("I think the store looks fine.") }, wantErr: ErrBadPlan},
		{name: "empty plan", reply: func(int) llmtest.Reply { return plan() }},
		{name: "empty answer", reply: func(int) llmtest.Reply { return llmtest.Text("") }, errText: "empty answer"},
		{name: "500 every time", reply: func(int) llmtest.Reply {
			return llmtest.Error(500, "").WithHeader("Retry-After", "0")
		}, errText: "status 500"},
		{name: "slower than the timeout", reply: func(int) llmtest.Reply { return plan(goodOps()...).After(5 * time.Second) },
			timeout: 300 * time.Millisecond, errText: "no answer within"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply { return tc.reply(int(n.Add(1))) })
			before, head := f.files(), f.head()
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			res, err := f.run(f.compactor(timeout))
			switch {
			case tc.errText != "":
				if err == nil || !strings.Contains(err.Error(), tc.errText) {
					t.Errorf("err %v, want one containing %q", err, tc.errText)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("err %v, want %v", err, tc.wantErr)
				}
			default:
				if !errors.Is(err, ErrNothingToDo) {
					t.Errorf("err %v, want ErrNothingToDo", err)
				}
			}
			if tc.skip != "" && !skippedFor(res, tc.skip) {
				t.Errorf("no op skipped for %q: %+v", tc.skip, res.Skipped)
			}
			if !maps.Equal(before, f.files()) {
				t.Errorf("files changed")
			}
			if f.head() != head {
				t.Errorf("a commit was made: %q", f.subjects()[0])
			}
			if tc.skip != "" && !strings.Contains(f.logs.String(), "op skipped") && !strings.Contains(f.logs.String(), "plan refused") {
				t.Errorf("skip not logged")
			}
		})
	}
}

func skippedFor(res *Result, part string) bool {
	for _, s := range res.Skipped {
		if strings.Contains(s.Reason, part) {
			return true
		}
	}
	return false
}

// TestTolerantAnswers are answers that work although they are not the
// plain JSON object asked for.
func TestTolerantAnswers(t *testing.T) {
	op := `{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"}`
	cases := map[string]func(n int) llmtest.Reply{
		"fenced":          func(int) llmtest.Reply { return llmtest.Text("```json\n{\"ops\": [" + op + "]}\n```") },
		"bare array":      func(int) llmtest.Reply { return llmtest.Text("[" + op + "]") },
		"prose and fence": func(int) llmtest.Reply { return llmtest.Text("Here is the plan:\n```\n[" + op + "]\n```\nDone.") },
		"429 then success": func(n int) llmtest.Reply {
			if n == 1 {
				return llmtest.Error(429, "").WithHeader("Retry-After", "0")
			}
			return llmtest.Text(`{"ops": [` + op + `]}`)
		},
	}
	for name, reply := range cases {
		t.Run(name, func(t *testing.T) {
			var n atomic.Int32
			f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply { return reply(int(n.Add(1))) })
			res, err := f.run(f.compactor(10 * time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if res.Superseded != 1 || !f.superseded("project-old-deadline.md", "project-new-deadline.md") {
				t.Errorf("superseded %d", res.Superseded)
			}
			if f.subjects()[0] != "memory: compaction (merged 0, superseded 1, rewrote 0, flagged 0)" {
				t.Errorf("subject %q", f.subjects()[0])
			}
		})
	}
}

// TestHandEditDuringCall edits a file while the model is answering: the op
// on it is skipped and the edit survives; the other ops apply.
func TestHandEditDuringCall(t *testing.T) {
	edited := mem("user", "email", "Work email", "ana@corp.example (changed by hand)")
	var dir atomic.Pointer[string] // set once the fixture exists
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		if err := os.WriteFile(filepath.Join(*dir.Load(), "user-email.md"), []byte(edited), 0o644); err != nil {
			panic(err)
		}
		return plan(
			map[string]any{"op": "rewrite", "file": "user-email.md", "body": "Ana's work email: ana@example.com", "reason": "tidy"},
			map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"},
		)
	})
	dir.Store(&f.dir)
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.read("user-email.md"); got != edited {
		t.Errorf("hand edit lost:\n%s", got)
	}
	if !skippedFor(res, "user-email.md: changed since the plan was made") || res.Superseded != 1 || res.Rewrote != 0 {
		t.Errorf("result %+v", res)
	}
	// The edit is in the checkpoint, so undo would keep it.
	if got := git(t, f.root, "show", res.Checkpoint+":memory/user-email.md"); !strings.Contains(got, "changed by hand") {
		t.Errorf("checkpoint lacks the hand edit: %q", got)
	}
}

// TestMergeSourceGoneIsSkipped removes a merge source during the call: the
// merge is skipped whole, nothing is written.
func TestMergeSourceGoneIsSkipped(t *testing.T) {
	var dir atomic.Pointer[string] // set once the fixture exists
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		if err := os.Remove(filepath.Join(*dir.Load(), "feedback-tabs-always.md")); err != nil {
			panic(err)
		}
		return plan(goodOps()[0])
	})
	dir.Store(&f.dir)
	res, err := f.run(f.compactor(10 * time.Second))
	if !errors.Is(err, ErrNothingToDo) || !skippedFor(res, "feedback-tabs-always.md: gone since the plan was made") {
		t.Fatalf("err %v, skipped %+v", err, res.Skipped)
	}
	if f.exists("feedback-indent-with-tabs.md") || f.read("feedback-tabs.md") != store()["feedback-tabs.md"] {
		t.Error("merge partly applied")
	}
}

func TestBoundCountsMergedFiles(t *testing.T) {
	// 12 files: at most 3 may go. A merge of 4 files removes 3 (allowed);
	// with one more delete it is 4 (refused).
	merge := map[string]any{"op": "merge", "files": []string{"user-email.md", "user-shell.md", "user-editor-a.md", "user-editor-b.md"},
		"into": map[string]any{"type": "user", "name": "about-ana", "description": "About Ana", "body": "Ana uses vim and emacs, and zsh with oh-my-zsh. Work mail: ana@example.com"}}
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(merge, map[string]any{"op": "supersede", "file": "reference-wiki.md", "by": "reference-dash.md"})
	})
	res, err := f.run(f.compactor(10 * time.Second))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "remove or cut down 4 of 12 files (at most 3 allowed)") {
		t.Fatalf("err %v", err)
	}
	if len(res.Skipped) != 2 {
		t.Errorf("skipped %+v", res.Skipped)
	}
	f2 := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply { return plan(merge) })
	if _, err := f2.run(f2.compactor(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if !f2.exists("user-about-ana.md") || f2.exists("user-shell.md") {
		t.Error("merge of four not applied")
	}
}

// TestFlagProtectsFiles: a plan that flags two files as contradicting and
// also deletes one of them would resolve the contradiction; the delete is
// skipped, the flag applied.
func TestFlagProtectsFiles(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "delete", "file": "user-editor-a.md", "reason": "emacs wins"},
			map[string]any{"op": "flag", "files": []string{"user-editor-a.md", "user-editor-b.md"}, "note": "vim or emacs"})
	})
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !f.exists("user-editor-a.md") || res.Flagged != 1 || !skippedFor(res, "flagged as a contradiction in the same plan") {
		t.Fatalf("result %+v", res)
	}
}
