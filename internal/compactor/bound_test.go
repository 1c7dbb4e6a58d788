package compactor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestGuttingRewritesAreBounded: rewrites that replace bodies with almost
// nothing count like deletes (one pass replaced 20 of 20 bodies with "x").
func TestGuttingRewritesAreBounded(t *testing.T) {
	var ops []map[string]any
	for _, f := range []string{"user-email.md", "user-shell.md", "reference-wiki.md", "feedback-tests.md"} {
		ops = append(ops, map[string]any{"op": "rewrite", "file": f, "body": "x", "reason": "shorter"})
	}
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply { return plan(ops...) })
	res, err := f.run(f.compactor(10 * time.Second))
	if !errors.Is(err, ErrRefused) || res.Rewrote != 0 {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if got := f.read("feedback-tests.md"); !strings.Contains(got, "Run the tests before committing.") {
		t.Fatalf("body gutted:\n%s", got)
	}
	// A rewrite that keeps the text (or adds to it) is not destructive.
	f2 := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		var keep []map[string]any
		for _, f := range []string{"user-email.md", "user-shell.md", "reference-wiki.md", "feedback-tests.md"} {
			keep = append(keep, map[string]any{"op": "rewrite", "file": f, "description": "Clearer: " + f})
		}
		return plan(keep...)
	})
	if res, err := f2.run(f2.compactor(10 * time.Second)); err != nil || res.Rewrote != 4 {
		t.Fatalf("description rewrites: %v %+v", err, res)
	}
}

// TestBoundHoldsOverADay: unattended passes may together remove no more
// than one pass's bound in 24 hours; then they stop without asking the
// model, until a person forces a pass.
func TestBoundHoldsOverADay(t *testing.T) {
	var calls int
	deletes := [][]string{{"reference-dash.md"}, {"user-shell.md", "feedback-tests.md"}, {"user-email.md"}}
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		var ops []map[string]any
		for _, file := range deletes[min(calls, len(deletes)-1)] {
			ops = append(ops, map[string]any{"op": "supersede", "file": file, "by": "project-new-deadline.md", "reason": "stale"})
		}
		calls++
		return plan(ops...)
	})
	// The bound is a quarter of the store: 12 files, 3. First pass: 1 removed.
	if res, err := f.run(f.compactor(10 * time.Second)); err != nil || res.Superseded != 1 || res.Destructive != 1 {
		t.Fatalf("first pass: %v %+v", err, res)
	}
	// Second pass: 11 files, bound 2, one left for the day: two deletes are refused whole.
	res, err := f.run(f.compactor(10 * time.Second))
	if !errors.Is(err, ErrRefused) || res.Superseded != 0 || !strings.Contains(err.Error(), "memoryd compact --force") {
		t.Fatalf("second pass: %v %+v", err, res)
	}
	// One more removal uses the day up; after it no pass even asks the model.
	calls = 2
	if res, err := f.run(f.compactor(10 * time.Second)); err != nil || res.Superseded != 1 {
		t.Fatalf("third pass: %v %+v", err, res)
	}
	before := calls
	if _, err := f.run(f.compactor(10 * time.Second)); !errors.Is(err, ErrBoundReached) || calls != before {
		t.Fatalf("fourth pass: %v, %d model calls", err, calls-before)
	}
	// A person may go on.
	calls = 1
	if res, err := f.run(f.compactor(10*time.Second, func(o *Options) { o.Force = true })); err != nil || res.Superseded != 2 {
		t.Fatalf("forced pass: %v %+v", err, res)
	}
}

// TestConflictsFileStaysBounded: a huge note is cut, and a full
// _CONFLICTS.md refuses more flags instead of growing past what can be read.
func TestConflictsFileStaysBounded(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "flag", "files": []string{"user-editor-a.md", "user-editor-b.md"},
			"note": strings.Repeat("which editor? ", 100_000)})
	})
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil || res.Flagged != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if n := len(f.read("_CONFLICTS.md")); n > 3*maxNote {
		t.Fatalf("_CONFLICTS.md is %d bytes after one flag", n)
	}
	f.write("_CONFLICTS.md", conflictsHeader+strings.Repeat("> old note line\n", maxConflicts/16))
	f2 := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "flag", "files": []string{"user-shell.md", "user-email.md"}, "note": "odd"})
	})
	f2.write("_CONFLICTS.md", f.read("_CONFLICTS.md"))
	git(t, f2.root, "add", "-A")
	git(t, f2.root, "commit", "-q", "-m", "full conflicts")
	res, err = f2.run(f2.compactor(10 * time.Second))
	if !errors.Is(err, ErrNothingToDo) || !skippedFor(res, "_CONFLICTS.md is full") {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestNeverMergesAcrossProjects: facts of different projects are never
// merged, and a merge within one project keeps its project.
func TestNeverMergesAcrossProjects(t *testing.T) {
	files := store()
	files["project-alpha-deploy.md"] = "---\nname: alpha-deploy\ndescription: Deploy with make ship\nmetadata:\n  type: project\n  project: alpha\n---\nDeploy with make ship.\n"
	files["project-beta-deploy.md"] = "---\nname: beta-deploy\ndescription: Deploy with make ship\nmetadata:\n  type: project\n  project: beta\n---\nDeploy with make ship, then tag.\n"
	files["project-alpha-ship.md"] = "---\nname: alpha-ship\ndescription: Ship is make ship\nmetadata:\n  type: project\n  project: alpha\n---\nShipping is make ship.\n"
	f := newFixture(t, files, func(llmtest.Recorded) llmtest.Reply {
		return plan(
			map[string]any{"op": "merge", "files": []string{"project-alpha-deploy.md", "project-beta-deploy.md"},
				"into": map[string]any{"type": "project", "name": "deploy", "description": "Deploy", "body": "make ship"}},
			map[string]any{"op": "merge", "files": []string{"project-alpha-deploy.md", "project-alpha-ship.md"},
				"into": map[string]any{"type": "project", "name": "alpha-deploy", "description": "Deploy alpha with make ship", "body": "Deploy and ship alpha with make ship."}},
		)
	})
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil || res.Merged != 1 || !skippedFor(res, "belong to different projects") {
		t.Fatalf("%v %+v", err, res)
	}
	m, err := index.Parse("project-alpha-deploy.md", []byte(f.read("project-alpha-deploy.md")))
	if err != nil || m.Project != "alpha" || !f.exists("project-beta-deploy.md") {
		t.Fatalf("merged fact: %+v %v", m, err)
	}
}
