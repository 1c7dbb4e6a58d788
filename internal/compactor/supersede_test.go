package compactor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestSupersedeOp: a model that says a newer fact replaces an older one
// gets a supersession: the old file stays, marked superseded_by and
// superseded_at, out of MEMORY.md; nothing is removed; the commit says so.
func TestSupersedeOp(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "supersede", "file": "project-old-deadline.md", "by": "project-new-deadline.md", "reason": "the release moved"})
	})
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Superseded != 1 || len(res.Skipped) != 0 {
		t.Fatalf("result %+v", res)
	}
	if !f.superseded("project-old-deadline.md", "project-new-deadline.md") {
		t.Fatalf("not superseded:\n%s\nMEMORY.md:\n%s", f.read("project-old-deadline.md"), f.read(index.IndexFile))
	}
	if !strings.Contains(f.read("project-old-deadline.md"), "The release is due in May.") {
		t.Error("the superseded fact lost its body")
	}
	if !strings.Contains(f.read(index.IndexFile), "(project-new-deadline.md)") {
		t.Error("the successor left the index")
	}
	if s := f.subjects()[0]; s != "memory: compaction (merged 0, superseded 1, rewrote 0, flagged 0)" {
		t.Errorf("subject %q", s)
	}
	// A superseded fact is history: the next pass does not show it to the model.
	var shown string
	f2 := newFixture(t, map[string]string{
		"project-old-deadline.md": strings.Replace(store()["project-old-deadline.md"], "  type: project\n", "  type: project\n  superseded_by: project-new-deadline.md\n  superseded_at: 2026-01-02\n", 1),
		"project-new-deadline.md": store()["project-new-deadline.md"],
		"user-email.md":           store()["user-email.md"],
	}, func(r llmtest.Recorded) llmtest.Reply { shown = r.User; return plan() })
	if _, err := f2.run(f2.compactor(10 * time.Second)); !errors.Is(err, ErrNothingToDo) {
		t.Fatal(err)
	}
	if strings.Contains(shown, "project-old-deadline.md") {
		t.Errorf("a superseded fact was sent to the model:\n%s", shown)
	}
}

// TestDeleteWithoutSuccessorRefused: a delete that names no fact replacing
// it is refused and the file kept; one whose successor is superseded in
// the same plan too.
func TestDeleteWithoutSuccessorRefused(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "delete", "file": "reference-wiki.md", "reason": "stale"},
			map[string]any{"op": "supersede", "file": "user-editor-a.md", "by": "user-editor-b.md"},
			map[string]any{"op": "supersede", "file": "user-editor-b.md", "by": "user-shell.md"})
	})
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f.read("reference-wiki.md") != store()["reference-wiki.md"] || !skippedFor(res, "compaction never deletes a fact") {
		t.Errorf("delete without a successor: %+v", res.Skipped)
	}
	if f.read("user-editor-a.md") != store()["user-editor-a.md"] || !skippedFor(res, "superseded itself in the same plan") {
		t.Errorf("superseded by a fact superseded in the same plan: %+v", res.Skipped)
	}
	if !f.superseded("user-editor-b.md", "user-shell.md") {
		t.Errorf("user-editor-b.md:\n%s", f.read("user-editor-b.md"))
	}
}

// TestMergeMustKeepContent: a merge whose fact drops what a merged file
// said (a URL, a number, most of its words) is refused and both files kept;
// one that rephrases and keeps it is applied.
func TestMergeMustKeepContent(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		applied    bool
	}{
		{"drops a url", "Team wiki and staging dashboard: https://wiki.example.com/team", false},
		{"drops the words", "Links.", false},
		{"keeps it", "Staging dashboard at https://grafana.example.com/d/staging; the team wiki at https://wiki.example.com/team.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
				return plan(map[string]any{"op": "merge", "files": []string{"reference-dash.md", "reference-wiki.md"},
					"into": map[string]any{"type": "reference", "name": "links", "description": "Team links", "body": tc.body}, "reason": "links"})
			})
			res, err := f.run(f.compactor(10 * time.Second))
			if tc.applied {
				if err != nil || res.Merged != 1 || f.exists("reference-wiki.md") {
					t.Fatalf("%v %+v", err, res)
				}
				return
			}
			if !errors.Is(err, ErrNothingToDo) || !skippedFor(res, "the merged fact drops what") {
				t.Fatalf("%v %+v", err, res.Skipped)
			}
			if f.exists("reference-links.md") || f.read("reference-wiki.md") != store()["reference-wiki.md"] {
				t.Error("a lossy merge was applied")
			}
		})
	}
}

var shownFile = regexp.MustCompile(`<memory file="([^"]+)"`)

// TestDeletingModelLosesNothing: a model that, on every one of 8 forced
// passes over a store of 20 facts, deletes as many files as a pass's bound
// allows (naming a successor for some, none for the rest) and merges two files into a fact
// that drops what they said, leaves every original fact's body in some file
// of the memory folder. (Before supersession, 8 such passes took 20 facts
// to 3.)
func TestDeletingModelLosesNothing(t *testing.T) {
	files := map[string]string{}
	var bodies []string
	for i := range 20 {
		body := fmt.Sprintf("Fact number %d: the service %s listens on port %d.\nWhy: decided in meeting %d.", i, strings.Repeat("x", i%5+1), 8000+i, i)
		files[fmt.Sprintf("project-fact-%02d.md", i)] = mem("project", fmt.Sprintf("fact-%02d", i), fmt.Sprintf("Fact %d about the service", i), body)
		bodies = append(bodies, body)
	}
	pass := 0
	f := newFixture(t, files, func(r llmtest.Recorded) llmtest.Reply {
		pass++
		var shown []string
		for _, m := range shownFile.FindAllStringSubmatch(r.User, -1) {
			shown = append(shown, m[1])
		}
		var ops []map[string]any
		if len(shown) >= 4 {
			ops = append(ops, map[string]any{"op": "merge", "files": shown[:2],
				"into": map[string]any{"type": "project", "name": fmt.Sprintf("merged-%d", pass), "description": "Merged", "body": "Some facts."}, "reason": "near-duplicates"})
		}
		// With the merge, within the pass's bound (a quarter of the store), as a model does.
		lo := min(2, len(shown))
		for i, file := range shown[lo:max(lo, min(1+len(shown)/4, len(shown)))] {
			reason := "stale"
			if i%2 == 1 {
				reason = "superseded by " + shown[0]
			}
			ops = append(ops, map[string]any{"op": "delete", "file": file, "reason": reason})
		}
		return plan(ops...)
	})
	for range 8 {
		_, err := f.run(f.compactor(10*time.Second, func(o *Options) { o.Force = true }))
		if err != nil && !errors.Is(err, ErrNothingToDo) && !errors.Is(err, ErrRefused) {
			t.Fatal(err)
		}
	}
	if pass < 2 {
		t.Fatalf("the model was asked %d times", pass)
	}
	var all strings.Builder
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && !index.Reserved(e.Name()) && !index.IsIndex(e.Name()) {
			data, _ := os.ReadFile(filepath.Join(f.dir, e.Name()))
			all.WriteString(index.Canonical(string(data)) + "\n")
		}
	}
	for i, body := range bodies {
		if !strings.Contains(all.String(), index.Canonical(body)) {
			t.Errorf("fact %d's body is gone from the memory folder: %q", i, body)
		}
	}
	// The supersessions left facts out of the index, none out of the folder.
	if n := strings.Count(f.read(index.IndexFile), "](project-fact-"); n == 20 {
		t.Error("no supersession was applied: the test proves nothing")
	}
}

// TestSupersededByAMergedFact: a supersession whose successor a merge of
// the same plan replaces points to the merge's target.
func TestSupersededByAMergedFact(t *testing.T) {
	files := store()
	files["project-july-why.md"] = mem("project", "july-why", "Why July", "The release moved to July because scope grew.")
	f := newFixture(t, files, func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "supersede", "file": "project-old-deadline.md", "by": "project-new-deadline.md"},
			map[string]any{"op": "merge", "files": []string{"project-new-deadline.md", "project-july-why.md"},
				"into": map[string]any{"type": "project", "name": "release-july", "description": "Release moved to July",
					"body": "The release moved to July because scope grew.\nWhy: scope grew."}})
	})
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil || res.Merged != 1 || res.Superseded != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if !f.superseded("project-old-deadline.md", "project-release-july.md") {
		t.Errorf("project-old-deadline.md:\n%s", f.read("project-old-deadline.md"))
	}
}
