package compactor

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/state"
)

func TestGoodPlan(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply { return plan(goodOps()...) })
	before := f.head()
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Merged != 1 || res.Superseded != 1 || res.Rewrote != 1 || res.Flagged != 1 || len(res.Skipped) != 0 {
		t.Fatalf("result %+v", res)
	}
	if res.Calls != 1 || res.Batches != 1 {
		t.Errorf("calls %d, batches %d; want 1, 1", res.Calls, res.Batches)
	}

	// The request: one call, the compact task and model, JSON mode, the
	// protocol in the system prompt and every file once in the prompt.
	reqs := f.srv.Prompts()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Task != "compact" || r.Model != "openai/test-model" {
		t.Errorf("task %q model %q", r.Task, r.Model)
	}
	if rf, _ := r.Body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format %v", r.Body["response_format"])
	}
	if !strings.Contains(r.System, "# Memory write protocol") || !strings.Contains(r.System, "Never resolve a contradiction") {
		t.Errorf("system prompt lacks the protocol or the instructions:\n%s", r.System)
	}
	for name := range store() {
		if n := strings.Count(r.User, `file="`+name+`"`); n != 1 {
			t.Errorf("%s appears %d times in the prompt", name, n)
		}
	}
	if !strings.Contains(r.User, `<memory file="project-freeze.md" type="project" readonly="true">`) {
		t.Errorf("readonly file not marked in the prompt")
	}

	// Files.
	merged := f.read("feedback-indent-with-tabs.md")
	m, err := index.Parse("feedback-indent-with-tabs.md", []byte(merged))
	if err != nil {
		t.Fatalf("merged file: %v\n%s", err, merged)
	}
	if m.Name != "indent-with-tabs" || m.Type != "feedback" || m.Description != "Indent with tabs, never spaces" ||
		!strings.Contains(m.Body, "Why: said so in review.") {
		t.Errorf("merged file %+v", m)
	}
	for _, gone := range []string{"feedback-tabs.md", "feedback-tabs-always.md"} {
		if f.exists(gone) {
			t.Errorf("%s still exists", gone)
		}
	}
	// The model's delete named the fact replacing it: a supersession.
	if !f.superseded("project-old-deadline.md", "project-new-deadline.md") {
		t.Errorf("project-old-deadline.md not superseded by project-new-deadline.md:\n%s", f.read("project-old-deadline.md"))
	}
	if got, want := unstamped(f.read("user-email.md")), mem("user", "email", "Work email is ana@example.com", "Ana's work email is ana@example.com."); got != want {
		t.Errorf("rewritten file:\n%s\nwant:\n%s", got, want)
	}
	for _, kept := range []string{"user-editor-a.md", "user-editor-b.md", "project-new-deadline.md", "project-freeze.md"} {
		if f.read(kept) != store()[kept] {
			t.Errorf("%s changed", kept)
		}
	}
	conflicts := f.read(index.ConflictsFile)
	if index.CountConflicts([]byte(conflicts)) != 1 ||
		!strings.Contains(conflicts, "## Contradiction: user-editor-a.md, user-editor-b.md\n") ||
		!strings.Contains(conflicts, "> vim or emacs?\n") {
		t.Errorf("_CONFLICTS.md:\n%s", conflicts)
	}
	idx := f.read(index.IndexFile)
	if !strings.Contains(idx, "> **1 unresolved contradiction**") || !strings.Contains(idx, "(feedback-indent-with-tabs.md)") ||
		strings.Contains(idx, "(feedback-tabs.md)") {
		t.Errorf("MEMORY.md:\n%s", idx)
	}

	// Commits: nothing was pending, so the last commit is the checkpoint
	// and the compaction commit sits right on it.
	if res.Checkpoint != before {
		t.Errorf("checkpoint %s, want the previous HEAD %s", res.Checkpoint, before)
	}
	if got := f.head(); got != res.Commit {
		t.Errorf("HEAD %s, compaction commit %s", got, res.Commit)
	}
	if s := f.subjects()[0]; s != "memory: compaction (merged 1, superseded 1, rewrote 1, flagged 1)" {
		t.Errorf("subject %q", s)
	}
	if p := git(t, f.root, "rev-parse", "HEAD^"); p != res.Checkpoint {
		t.Errorf("compaction parent %s, checkpoint %s", p, res.Checkpoint)
	}
	if st := git(t, f.root, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
	body := git(t, f.root, "log", "-1", "--format=%b")
	if !strings.Contains(body, "Checkpoint: "+before) || !strings.Contains(body, "- supersede project-old-deadline.md by project-new-deadline.md") {
		t.Errorf("commit body:\n%s", body)
	}
}

func TestCheckpointCommitsPendingChanges(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"})
	})
	f.write("user-pending.md", mem("user", "pending", "Not yet committed", "Written by hand."))
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	subj := f.subjects()
	if subj[0] != "memory: compaction (merged 0, superseded 1, rewrote 0, flagged 0)" || subj[1] != commitmsg.CheckpointSubject {
		t.Fatalf("subjects %q", subj)
	}
	if got := git(t, f.root, "rev-parse", "HEAD^"); got != res.Checkpoint {
		t.Errorf("checkpoint %s is not the compaction's parent %s", res.Checkpoint, got)
	}
	if got := git(t, f.root, "show", res.Checkpoint+":memory/user-pending.md"); !strings.Contains(got, "Written by hand.") {
		t.Errorf("checkpoint lacks the pending file: %q", got)
	}
	if got := git(t, f.root, "show", res.Checkpoint+":memory/project-old-deadline.md"); got == "" {
		t.Error("checkpoint lacks the deleted file")
	}
}

func TestFewerThanTwoFilesAsksNothing(t *testing.T) {
	for _, files := range []map[string]string{
		{},
		{"user-one.md": mem("user", "one", "One", "Only fact.")},
	} {
		f := newFixture(t, files, nil)
		res, err := f.run(f.compactor(time.Second))
		if !errors.Is(err, ErrNothingToDo) {
			t.Errorf("%d files: err %v", len(files), err)
		}
		if res.Calls != 0 || len(f.srv.Requests()) != 0 {
			t.Errorf("%d files: %d calls", len(files), len(f.srv.Requests()))
		}
	}
}

func TestMinEntries(t *testing.T) {
	f := newFixture(t, store(), nil)
	_, err := f.run(f.compactor(time.Second, func(o *Options) { o.MinEntries = 50 }))
	if !errors.Is(err, ErrNothingToDo) || len(f.srv.Requests()) != 0 {
		t.Fatalf("err %v, %d requests", err, len(f.srv.Requests()))
	}
}

func TestNoGit(t *testing.T) {
	f := newFixture(t, store(), nil)
	c := f.compactor(time.Second, func(o *Options) { o.Folder = f.folder(nil, time.Second) })
	if _, err := f.run(c); !errors.Is(err, ErrNoGit) || err.Error() != "no git repository: compaction needs a checkpoint" {
		t.Fatalf("err %v", err)
	}
	if len(f.srv.Requests()) != 0 {
		t.Error("the model was asked")
	}
}

// TestPassLockHeld: a second pass is refused at once, naming the holder,
// before the model is asked.
func TestPassLockHeld(t *testing.T) {
	f := newFixture(t, store(), nil)
	lock, err := state.TryLock(f.stateDir, PassLock, "pid 1, someone else")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	_, err = f.run(f.compactor(time.Second))
	if !errors.Is(err, state.ErrLocked) || !strings.Contains(err.Error(), "someone else") {
		t.Fatalf("err %v", err)
	}
	if len(f.srv.Requests()) != 0 {
		t.Error("the model was asked")
	}
}

// TestPlansWithoutTheWriteLock: the model is asked while another writer
// holds the write lock, which the pass takes only once the model answered;
// the writer's change made meanwhile survives, and the rest of the plan is
// applied.
func TestPlansWithoutTheWriteLock(t *testing.T) {
	var f *fixture
	var lock *state.Lock
	edited := mem("user", "email", "work mail", "ana@corp.example, saved meanwhile")
	f = newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		// A writer holds the lock during the call, writes and lets go.
		if !state.Held(f.stateDir, state.WriteLock) {
			t.Error("the write lock is free during the model call; the test holds it")
		}
		f.write("user-email.md", edited)
		lock.Unlock()
		return plan(
			map[string]any{"op": "rewrite", "file": "user-email.md", "body": "ana@example.com, tidied", "reason": "tidy"},
			map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"})
	})
	var err error
	if lock, err = state.TryLock(f.stateDir, state.WriteLock, "pid 1, memoryd add"); err != nil {
		t.Fatal(err)
	}
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Superseded != 1 || res.Rewrote != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "changed since the plan was made") {
		t.Fatalf("result %+v", res)
	}
	if f.read("user-email.md") != edited || !f.superseded("project-old-deadline.md", "project-new-deadline.md") {
		t.Errorf("files %v", f.files())
	}
	if got := git(t, f.root, "show", res.Checkpoint+":memory/user-email.md"); got != strings.TrimSpace(edited) {
		t.Errorf("the change made during the call is not in the checkpoint: %q", got)
	}
}

// TestWriteLockHeldPastTheWait: when another writer keeps the write lock
// past the transaction's wait after the model answered, the pass fails
// with nothing written and no commit.
func TestWriteLockHeldPastTheWait(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply { return plan(goodOps()...) })
	lock, err := state.TryLock(f.stateDir, state.WriteLock, "pid 1, someone else")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	f.write("user-pending.md", mem("user", "pending", "Pending", "Not committed."))
	before, head := f.files(), f.head()
	c := f.compactor(10*time.Second, func(o *Options) { o.Folder = f.folder(o.Folder.Repo(), 300*time.Millisecond) })
	_, err = f.run(c)
	if !errors.Is(err, folder.ErrBusy) || !errors.Is(err, state.ErrLocked) || !strings.Contains(err.Error(), "someone else") {
		t.Fatalf("err %v", err)
	}
	if f.head() != head || !maps.Equal(before, f.files()) {
		t.Error("the pass changed something without the write lock")
	}
	if state.Held(f.stateDir, PassLock) {
		t.Error("the pass lock is still held")
	}
}

func TestBusyRepository(t *testing.T) {
	f := newFixture(t, store(), nil)
	head := f.head()
	if err := os.WriteFile(filepath.Join(f.root, ".git", "MERGE_HEAD"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := f.run(f.compactor(time.Second))
	if err == nil || !strings.Contains(err.Error(), "merge") {
		t.Fatalf("err %v", err)
	}
	if len(f.srv.Requests()) != 0 {
		t.Error("the model was asked")
	}
}

func TestDedupeWithoutTheModel(t *testing.T) {
	files := map[string]string{
		"feedback-a.md": mem("feedback", "a", "Tabs", "Use tabs, never spaces!"),
		"feedback-b.md": mem("feedback", "b", "Tabs again", "use TABS never   spaces"),
		"user-c.md":     mem("user", "c", "Tabs", "Use tabs, never spaces!"), // another type: not a duplicate
	}
	f := newFixture(t, files, func(r llmtest.Recorded) llmtest.Reply { return plan() })
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f.exists("feedback-b.md") || f.read("feedback-a.md") != files["feedback-a.md"] || !f.exists("user-c.md") {
		t.Fatalf("files after dedupe: %v", f.files())
	}
	if res.Merged != 1 || f.subjects()[0] != "memory: compaction (merged 1, superseded 0, rewrote 0, flagged 0)" {
		t.Errorf("merged %d, subject %q", res.Merged, f.subjects()[0])
	}
	// The model saw the two remaining files, not the removed duplicate.
	reqs := f.srv.Prompts()
	if len(reqs) != 1 || strings.Contains(reqs[0].User, "feedback-b.md") || !strings.Contains(reqs[0].User, "feedback-a.md") {
		t.Errorf("requests: %d", len(reqs))
	}
}

func TestDedupeAloneMakesNoCall(t *testing.T) {
	files := map[string]string{
		"feedback-a.md": mem("feedback", "a", "Tabs", "Use tabs."),
		"feedback-b.md": mem("feedback", "b", "Tabs", "Use tabs."),
	}
	f := newFixture(t, files, nil)
	res, err := f.run(f.compactor(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 0 || len(f.srv.Requests()) != 0 || f.exists("feedback-b.md") {
		t.Fatalf("calls %d, files %v", res.Calls, f.files())
	}
}

func TestDedupeKeepsReadonly(t *testing.T) {
	ro := "---\nname: b\ndescription: Tabs\nmetadata:\n  type: feedback\n  readonly: true\n---\nUse tabs.\n"
	files := map[string]string{
		"feedback-a.md": mem("feedback", "a", "Tabs", "Use tabs."),
		"feedback-b.md": ro,
		"feedback-c.md": mem("feedback", "c", "Tabs", "Use tabs."),
	}
	f := newFixture(t, files, nil)
	if _, err := f.run(f.compactor(time.Second)); err != nil {
		t.Fatal(err)
	}
	if f.read("feedback-b.md") != ro || f.exists("feedback-a.md") || f.exists("feedback-c.md") {
		t.Fatalf("files %v", f.files())
	}
}

func TestFlagOnlyOnce(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "flag", "files": []string{"user-editor-b.md", "user-editor-a.md"}, "note": "which editor?"})
	})
	if _, err := f.run(f.compactor(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	first := f.read(index.ConflictsFile)
	res, err := f.run(f.compactor(10 * time.Second))
	if !errors.Is(err, ErrNothingToDo) || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "already flagged") {
		t.Fatalf("second pass: err %v, skipped %+v", err, res.Skipped)
	}
	if f.read(index.ConflictsFile) != first {
		t.Error("_CONFLICTS.md changed on the second pass")
	}
	if f.read("user-editor-a.md") != store()["user-editor-a.md"] || f.read("user-editor-b.md") != store()["user-editor-b.md"] {
		t.Error("a flagged file changed")
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(append(goodOps(), map[string]any{"op": "delete", "file": "MEMORY.md"})...)
	})
	f.write("user-pending.md", mem("user", "pending", "Pending", "Not committed."))
	before, head := f.files(), f.head()
	res, err := f.compactor(10*time.Second, func(o *Options) { o.Folder = f.folder(nil, time.Second) }).Plan(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || len(res.Applied) != 4 || len(res.Skipped) != 1 || res.Merged != 1 || res.Flagged != 1 {
		t.Fatalf("result %+v", res)
	}
	if f.head() != head || !maps.Equal(before, f.files()) {
		t.Fatal("dry run changed something")
	}
}

// TestMergeKeepsUnknownKeys: the merged file keeps the keys memoryd does
// not read of the target and of the file it replaces.
func TestMergeKeepsUnknownKeys(t *testing.T) {
	files := store()
	files["feedback-tabs.md"] = "---\nname: tabs\ndescription: Prefers tabs\ntags: [style]\nmetadata:\n  type: feedback\n  source: review # where\n---\nUse tabs.\n"
	files["feedback-tabs-always.md"] = strings.Replace(files["feedback-tabs-always.md"], "metadata:\n", "tags: [go]\nticket: T-7\nmetadata:\n  reviewed: 2025-02-03\n", 1)
	f := newFixture(t, files, func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "merge", "files": []string{"feedback-tabs-always.md", "feedback-tabs.md"},
			"into": map[string]any{"type": "feedback", "name": "tabs", "description": "Tabs, always", "body": "Always indent with tabs, never spaces; use tabs."}, "reason": "dup"})
	})
	if _, err := f.run(f.compactor(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	want := "---\nname: tabs\ndescription: Tabs, always\ntags: [style]\nmetadata:\n  type: feedback\n  reviewed: 2025-02-03\nticket: T-7\n---\nAlways indent with tabs, never spaces; use tabs.\n"
	got := f.read("feedback-tabs.md")
	if unstamped(got) != want || !strings.Contains(got, "- agent: review\n") || !strings.Contains(got, "- agent: compaction\n") {
		t.Errorf("merged into an existing source (keeping every origin):\n%s\nwant, with source and updated:\n%s", got, want)
	}
	if f.exists("feedback-tabs-always.md") {
		t.Error("the other source is still there")
	}
}

func TestRewriteKeepsOtherKeys(t *testing.T) {
	files := store()
	files["user-email.md"] = "---\nname: email\ntitle: Email\ndescription: work mail\nmetadata:\n  type: user\n  created: 2024-01-01\n---\nold\n"
	f := newFixture(t, files, func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "rewrite", "file": "user-email.md", "body": "ana@example.com at work.", "reason": "tidy"})
	})
	if _, err := f.run(f.compactor(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	want := "---\nname: email\ntitle: Email\ndescription: work mail\nmetadata:\n  type: user\n  created: 2024-01-01\n---\nana@example.com at work.\n"
	if got := unstamped(f.read("user-email.md")); got != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
}

// TestLenientOps: a rewrite with a description only keeps the body; a merge
// named like a file ("user-x.md") gets the name "x".
func TestLenientOps(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "rewrite", "file": "user-shell.md", "description": "Uses zsh with oh-my-zsh"},
			map[string]any{"op": "merge", "files": []string{"reference-dash.md", "reference-wiki.md"},
				"into": map[string]any{"type": "reference", "name": "reference-links.md", "description": "Links", "body": "Staging dashboard: https://grafana.example.com/d/staging\nTeam wiki: https://wiki.example.com/team"}})
	})
	if _, err := f.run(f.compactor(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, want := unstamped(f.read("user-shell.md")), mem("user", "shell", "Uses zsh with oh-my-zsh", "Ana uses zsh with oh-my-zsh."); got != want {
		t.Errorf("description-only rewrite:\n%s\nwant:\n%s", got, want)
	}
	if m, err := index.Parse("reference-links.md", []byte(f.read("reference-links.md"))); err != nil || m.Name != "links" {
		t.Errorf("merged file: %v %+v", err, m)
	}
}

// TestMergeKeepsEveryCite: a merge cites every file its facts cited, once,
// each with the version its fact recorded.
func TestMergeKeepsEveryCite(t *testing.T) {
	a, b := strings.Repeat("a1", 20), strings.Repeat("b2", 20)
	files := store()
	files["feedback-tabs.md"] = "---\nname: tabs\ndescription: Prefers tabs\nmetadata:\n  type: feedback\n  cites:\n    - .editorconfig@" + a + "\n---\nUse tabs.\n"
	files["feedback-tabs-always.md"] = strings.Replace(files["feedback-tabs-always.md"], "metadata:\n", "metadata:\n  cites:\n    - .editorconfig@"+a+"\n    - Makefile@"+b+"#fmt\n", 1)
	f := newFixture(t, files, func(llmtest.Recorded) llmtest.Reply {
		return plan(map[string]any{"op": "merge", "files": []string{"feedback-tabs.md", "feedback-tabs-always.md"},
			"into": map[string]any{"type": "feedback", "name": "tabs", "description": "Tabs, always", "body": "Always indent with tabs, never spaces; use tabs."}, "reason": "dup"})
	})
	if _, err := f.run(f.compactor(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	m, err := index.Parse("feedback-tabs.md", []byte(f.read("feedback-tabs.md")))
	if err != nil {
		t.Fatal(err)
	}
	want := []index.Cite{{Path: ".editorconfig", Blob: a}, {Path: "Makefile", Blob: b, Symbol: "fmt"}}
	if !slices.Equal(m.Cites, want) {
		t.Fatalf("merged cites %+v, want %+v\n%s", m.Cites, want, f.read("feedback-tabs.md"))
	}
}
