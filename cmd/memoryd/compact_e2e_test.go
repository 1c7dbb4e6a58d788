package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// compactStore is the store the compaction tests start from.
func compactStore() map[string]string {
	return map[string]string{
		"feedback-tabs.md":        memoryFile("feedback", "tabs", "Prefers tabs", "Use tabs for indentation.\nWhy: said so in review."),
		"feedback-tabs-always.md": memoryFile("feedback", "tabs-always", "Tabs always", "Always indent with tabs, never spaces."),
		"project-old-deadline.md": memoryFile("project", "old-deadline", "Release in May", "The release is due in May."),
		"project-new-deadline.md": memoryFile("project", "new-deadline", "Release moved to July", "The release moved to July.\nWhy: scope grew."),
		"user-email.md":           memoryFile("user", "email", "work mail", "ana@example.com"),
		"user-editor-a.md":        memoryFile("user", "editor-a", "Uses vim", "Ana uses vim."),
		"user-editor-b.md":        memoryFile("user", "editor-b", "Uses emacs", "Ana uses emacs."),
		"reference-dash.md":       memoryFile("reference", "dash", "Staging dashboard", "https://grafana.example.com/d/staging"),
		"reference-wiki.md":       memoryFile("reference", "wiki", "Team wiki", "https://wiki.example.com/team"),
		"user-shell.md":           memoryFile("user", "shell", "Uses zsh", "Ana uses zsh."),
		"feedback-tests.md":       memoryFile("feedback", "tests", "Run tests first", "Run the tests before committing."),
		"project-freeze.md":       "---\nname: freeze\ndescription: Billing freeze\nmetadata:\n  type: project\n  readonly: true\n---\nNo billing schema changes until June.\n",
	}
}

// goodPlan has one op of each kind on compactStore.
func goodPlan() []map[string]any {
	return []map[string]any{
		{"op": "merge", "files": []string{"feedback-tabs.md", "feedback-tabs-always.md"},
			"into": map[string]any{"type": "feedback", "name": "indent-with-tabs", "description": "Indent with tabs, never spaces",
				"body": "Always indent with tabs, never spaces.\nWhy: said so in review."}, "reason": "same preference"},
		{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"},
		{"op": "rewrite", "file": "user-email.md", "description": "Work email is ana@example.com",
			"body": "Ana's work email is ana@example.com.", "reason": "clearer"},
		{"op": "flag", "files": []string{"user-editor-a.md", "user-editor-b.md"}, "note": "vim or emacs?"},
	}
}

func jsonPlan(ops ...map[string]any) llmtest.Reply {
	if ops == nil {
		ops = []map[string]any{}
	}
	return llmtest.JSON(map[string]any{"ops": ops})
}

// compactWorld is a world holding compactStore, committed, and a fake LLM
// server answering with handler; llmEnv points memoryd at it.
func compactWorld(t *testing.T, handler func(llmtest.Recorded) llmtest.Reply) (*world, *llmtest.Server, []string) {
	t.Helper()
	w := newWorld(t)
	for name, content := range compactStore() {
		w.write(name, content)
	}
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "memory files")
	srv := llmtest.NewServer(t, handler)
	env := []string{
		"MEMORY_LLM_PROVIDER=openai",
		"MEMORY_LLM_BASE_URL=" + srv.OpenAIURL(),
		"MEMORY_COMPACT_MODEL=openai/test-model",
		"MEMORY_LLM_TIMEOUT_MS=20000",
	}
	return w, srv, env
}

// memFiles returns the memory folder's memory files and _CONFLICTS.md by
// name: not hidden files, not MEMORY.md or PROTOCOL.md (the daemon writes
// those whenever they are missing).
func (w *world) memFiles() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(w.mem)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == index.IndexFile || e.Name() == index.ProtocolFile {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(w.mem, e.Name()))
		out[e.Name()] = string(data)
	}
	return out
}

// superseded reports whether the fact name is in the memory folder,
// marked superseded (metadata.superseded_by), and in no index.
func (w *world) superseded(name string) bool {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.mem, name))
	if err != nil {
		return false
	}
	m, err := index.Parse(name, data)
	return err == nil && m.SupersededBy != "" && !strings.Contains(w.index(), "("+name+")")
}

func (w *world) exists(name string) bool {
	_, err := os.Lstat(filepath.Join(w.mem, name))
	return err == nil
}

func TestCompactGoodPlanThenUndo(t *testing.T) {
	w, srv, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply { return jsonPlan(goodPlan()...) })
	// One pending hand edit: the checkpoint commits it.
	w.write("user-pending.md", memoryFile("user", "pending", "Written by hand", "Not committed yet."))
	before := w.memFiles()
	head := w.head()

	out, code := w.runCmd(env, "compact")
	if code != 0 {
		t.Fatalf("compact exit %d:\n%s", code, out)
	}
	if st := w.compactState(); st.LastCompactedAt.IsZero() || time.Since(st.LastCompactedAt) > time.Hour || st.Churn != 0 {
		t.Errorf("the pass was not recorded for the daemon's triggers: %+v", st)
	}
	if !strings.Contains(out, "compaction: merged 1, superseded 1, rewrote 1, flagged 1") {
		t.Errorf("output:\n%s", out)
	}
	if r := srv.Prompts(); len(r) != 1 || r[0].Task != "compact" || r[0].Header.Get("X-Memoryd-Task") != "compact" || r[0].Model != "openai/test-model" {
		t.Fatalf("requests: %+v", r)
	}

	// Files.
	merged, err := index.Parse("feedback-indent-with-tabs.md", []byte(w.memFiles()["feedback-indent-with-tabs.md"]))
	if err != nil || merged.Description != "Indent with tabs, never spaces" || !strings.Contains(merged.Body, "Why: said so in review.") {
		t.Errorf("merged file: %v %+v", err, merged)
	}
	for _, gone := range []string{"feedback-tabs.md", "feedback-tabs-always.md"} {
		if w.exists(gone) {
			t.Errorf("%s still exists", gone)
		}
	}
	if !w.superseded("project-old-deadline.md") {
		t.Errorf("project-old-deadline.md is not superseded:\n%s", w.memFiles()["project-old-deadline.md"])
	}
	if got := unstamped(w.memFiles()["user-email.md"]); got != memoryFile("user", "email", "Work email is ana@example.com", "Ana's work email is ana@example.com.") {
		t.Errorf("rewritten file:\n%s", got)
	}
	conflicts := w.memFiles()[index.ConflictsFile]
	if !strings.Contains(conflicts, "## Contradiction: user-editor-a.md, user-editor-b.md\n") || !strings.Contains(conflicts, "> vim or emacs?") {
		t.Errorf("_CONFLICTS.md:\n%s", conflicts)
	}
	if idx := w.index(); !strings.Contains(idx, "> **1 unresolved contradiction** — see [_CONFLICTS.md](_CONFLICTS.md).") ||
		!strings.Contains(idx, "(feedback-indent-with-tabs.md)") || strings.Contains(idx, "(feedback-tabs.md)") {
		t.Errorf("MEMORY.md:\n%s", idx)
	}

	// Commits, seen with the git CLI.
	subj := w.subjects()
	if subj[0] != "memory: compaction (merged 1, superseded 1, rewrote 1, flagged 1)" || subj[1] != "memory: checkpoint before compaction" {
		t.Fatalf("subjects %q", subj)
	}
	if got := w.git(w.notes, "rev-parse", "HEAD~2"); got != head {
		t.Errorf("HEAD~2 is %s, want the commit before the pass %s", got, head)
	}
	if got := w.git(w.notes, "show", "HEAD^:memory/user-pending.md"); !strings.Contains(got, "Not committed yet.") {
		t.Errorf("checkpoint lacks the pending file: %q", got)
	}
	changed := w.git(w.notes, "show", "--name-status", "--format=", "HEAD")
	for _, want := range []string{"M\tmemory/MEMORY.md", "A\tmemory/_CONFLICTS.md", "A\tmemory/feedback-indent-with-tabs.md",
		"D\tmemory/feedback-tabs.md", "D\tmemory/feedback-tabs-always.md", "M\tmemory/project-old-deadline.md", "M\tmemory/user-email.md"} {
		if !strings.Contains(changed, want) {
			t.Errorf("compaction commit lacks %q:\n%s", want, changed)
		}
	}
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
	hist, _ := w.runCmd(nil, "history")
	if !strings.Contains(hist, "* ") || !strings.Contains(hist, "C ") {
		t.Errorf("history does not mark the pass:\n%s", hist)
	}

	// Undo brings every file back.
	out, code = w.runCmd(nil, "undo")
	if code != 0 {
		t.Fatalf("undo exit %d:\n%s", code, out)
	}
	if after := w.memFiles(); !maps.Equal(after, before) {
		t.Errorf("after undo:\n%v\nwant:\n%v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}
	if idx := w.index(); strings.Contains(idx, "contradiction") || !strings.Contains(idx, "(feedback-tabs.md)") {
		t.Errorf("MEMORY.md after undo:\n%s", idx)
	}
	if s := w.subjects(); !strings.HasPrefix(s[0], "memory: ") || !strings.Contains(strings.Join(s[:2], "\n"), "memory: undo compaction ") {
		t.Errorf("subjects after undo %q", s[:3])
	}
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean after undo:\n%s", st)
	}
	// A second undo has nothing left to do.
	if out, code := w.runCmd(nil, "undo"); code != 0 || !strings.Contains(out, "nothing to undo") {
		t.Errorf("second undo exit %d:\n%s", code, out)
	}
	w.fsck()
}

func TestCompactDryRun(t *testing.T) {
	w, _, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply {
		return jsonPlan(append(goodPlan(), map[string]any{"op": "delete", "file": "project-freeze.md"})...)
	})
	w.write("user-pending.md", memoryFile("user", "pending", "Pending", "Not committed."))
	before, head := w.memFiles(), w.head()
	out, code := w.runCmd(env, "compact", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"would apply: merge feedback-tabs.md + feedback-tabs-always.md -> feedback-indent-with-tabs.md (same preference)",
		"would apply: supersede project-old-deadline.md by project-new-deadline.md",
		"would apply: rewrite user-email.md",
		"would apply: flag user-editor-a.md, user-editor-b.md (vim or emacs?)",
		"would skip: delete project-freeze.md: project-freeze.md: readonly",
		"dry run, nothing changed: would have merged 1, superseded 1, rewrote 1, flagged 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !maps.Equal(before, w.memFiles()) || w.head() != head || w.exists(index.IndexFile) {
		t.Error("dry run changed something")
	}
}

// TestCompactHostileAnswers runs `memoryd compact` against answers that
// must leave the store as it was, and two that must work.
func TestCompactHostileAnswers(t *testing.T) {
	del := func(file string) func(int) llmtest.Reply {
		return func(int) llmtest.Reply { return jsonPlan(map[string]any{"op": "delete", "file": file, "reason": "x"}) }
	}
	cases := []struct {
		name    string
		reply   func(n int) llmtest.Reply
		extra   []string
		code    int    // expected exit status
		output  string // part of the output
		changes bool   // the pass is expected to work
	}{
		{name: "parent path", reply: del("../x.md"), output: "not a clean path inside the memory folder", code: 0},
		{name: "absolute path", reply: del("/etc/passwd"), output: "absolute path", code: 0},
		{name: "index", reply: del("MEMORY.md"), output: "reserved file", code: 0},
		{name: "readonly", reply: del("project-freeze.md"), output: "project-freeze.md: readonly", code: 0},
		{name: "missing", reply: del("user-nobody.md"), output: "no such memory file", code: 0},
		{name: "delete every file", reply: func(int) llmtest.Reply {
			var ops []map[string]any
			for name := range compactStore() {
				ops = append(ops, map[string]any{"op": "delete", "file": name})
			}
			return jsonPlan(ops...)
		}, output: "compaction never deletes a fact", code: 0},
		{name: "supersede every file", reply: func(int) llmtest.Reply {
			var ops []map[string]any
			for name := range compactStore() {
				ops = append(ops, map[string]any{"op": "supersede", "file": name, "by": "project-new-deadline.md"})
			}
			return jsonPlan(ops...)
		}, output: "plan refused: it would remove", code: 1},
		{name: "invalid JSON", reply: func(int) llmtest.Reply { return llmtest.Text(`{"ops": [{"op": "delete",`) }, output: "unusable plan", code: 1},
		{name: "empty plan", reply: func(int) llmtest.Reply { return jsonPlan() }, output: "nothing to compact", code: 0},
		{name: "500 every time", reply: func(int) llmtest.Reply { return llmtest.Error(500, "").WithHeader("Retry-After", "0") },
			output: "status 500", code: 1},
		{name: "slower than the timeout", reply: func(int) llmtest.Reply { return jsonPlan(goodPlan()...).After(20 * time.Second) },
			extra: []string{"MEMORY_LLM_TIMEOUT_MS=500"}, output: "no answer within", code: 1},
		{name: "fenced", reply: func(int) llmtest.Reply {
			return llmtest.Text("```json\n{\"ops\": [{\"op\": \"delete\", \"file\": \"project-old-deadline.md\", \"reason\": \"superseded by project-new-deadline.md\"}]}\n```")
		}, output: "compaction: merged 0, superseded 1", changes: true},
		{name: "429 then success", reply: func(n int) llmtest.Reply {
			if n == 1 {
				return llmtest.Error(429, "").WithHeader("Retry-After", "0")
			}
			return jsonPlan(map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"})
		}, output: "compaction: merged 0, superseded 1", changes: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			w, _, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply { return tc.reply(int(n.Add(1))) })
			before, head := w.memFiles(), w.head()
			out, code := w.runCmd(append(env, tc.extra...), "compact")
			if code != tc.code || !strings.Contains(out, tc.output) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s", code, tc.code, tc.output, out)
			}
			if tc.changes {
				if !w.superseded("project-old-deadline.md") || !strings.HasPrefix(w.subjects()[0], "memory: compaction") {
					t.Errorf("the pass did not apply:\n%s", out)
				}
				return
			}
			if !maps.Equal(before, w.memFiles()) || w.exists(index.IndexFile) {
				t.Errorf("files changed:\n%s", out)
			}
			if w.head() != head {
				t.Errorf("a commit was made: %q", w.subjects()[0])
			}
		})
	}
}

func TestCompactHandEditDuringCall(t *testing.T) {
	edited := memoryFile("user", "email", "Work email", "ana@corp.example, changed by hand")
	var mem atomic.Pointer[string] // the memory folder, set once the world exists
	w, _, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply {
		if err := os.WriteFile(filepath.Join(*mem.Load(), "user-email.md"), []byte(edited), 0o644); err != nil {
			panic(err)
		}
		return jsonPlan(
			map[string]any{"op": "rewrite", "file": "user-email.md", "body": "ana@example.com, tidied", "reason": "tidy"},
			map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"},
		)
	})
	mem.Store(&w.mem)
	out, code := w.runCmd(env, "compact")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if got := w.memFiles()["user-email.md"]; got != edited {
		t.Errorf("hand edit lost:\n%s", got)
	}
	if !strings.Contains(out, "skipped: rewrite user-email.md (tidy): user-email.md: changed since the plan was made") ||
		!w.superseded("project-old-deadline.md") {
		t.Errorf("output:\n%s", out)
	}
	if got := w.show("memory/user-email.md"); got != edited {
		t.Errorf("the hand edit is not committed (checkpoint): %q", got)
	}
}

// TestCompactLockHeld runs two passes at once: the second is refused with
// a message naming the lock, the first completes.
func TestCompactLockHeld(t *testing.T) {
	release := make(chan struct{})
	w, srv, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply {
		<-release
		return jsonPlan(map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"})
	})
	first := w.start(env, "compact")
	srv.WaitPrompts(t, 1, patience)
	out, code := w.runCmd(env, "compact")
	close(release)
	if code != 1 || !strings.Contains(out, "another compaction or commit is running") ||
		!strings.Contains(out, "locked by another process") || !strings.Contains(out, "memoryd compact (compaction)") {
		t.Errorf("second compact: exit %d:\n%s", code, out)
	}
	select {
	case <-first.done:
	case <-time.After(patience):
		t.Fatal("first compact did not finish")
	}
	if first.err != nil || !w.superseded("project-old-deadline.md") {
		t.Fatalf("first compact: %v\n%s", first.err, first.output())
	}
	if n := len(srv.Prompts()); n != 1 {
		t.Errorf("%d requests; the refused pass must not ask the model", n)
	}
}

// TestCompactKilledWhileApplying kills `memoryd compact` with SIGKILL after
// its first op and before its second (MEMORYD_TEST_APPLY_DELAY_MS pauses
// before each op): no file is truncated, the checkpoint is committed, a
// restarted daemon commits what was applied, and undo, run beside it,
// brings the store back.
func TestCompactKilledWhileApplying(t *testing.T) {
	w, _, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply { return jsonPlan(goodPlan()...) })
	w.write("user-pending.md", memoryFile("user", "pending", "Written by hand", "Not committed yet."))
	before := w.memFiles()
	p := w.start(append(env, applyDelayEnv+"=1500"), "compact")
	// The first op is the merge: the merged file appears, its sources go.
	waitFor(t, "the first op applied", func() bool { return !w.exists("feedback-tabs-always.md") })
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	if w.superseded("project-old-deadline.md") {
		t.Fatal("the supersession (applied last) was applied before the kill; the test did not interrupt applying")
	}
	for name, content := range w.memFiles() {
		if _, err := index.Parse(name, []byte(content)); err != nil {
			t.Errorf("%s after the kill: %v", name, err)
		}
	}
	if subj := w.subjects(); subj[0] != "memory: checkpoint before compaction" {
		t.Fatalf("subjects after the kill %q", subj[:2])
	}

	// Restart: the daemon commits the half-applied pass like any edit.
	d := w.startDaemon()
	waitFor(t, "the daemon's commit of the applied op", func() bool {
		return strings.Contains(w.show("memory/MEMORY.md"), "feedback-indent-with-tabs.md")
	})
	var out string
	waitFor(t, "undo (the daemon may hold the write lock for a moment)", func() bool {
		var code int
		out, code = w.runCmd(nil, "undo")
		if code != 0 && !strings.Contains(out, "try again later") {
			t.Fatalf("undo exit %d:\n%s", code, out)
		}
		return code == 0
	})
	if !strings.Contains(out, "restored the memory folder to checkpoint") {
		t.Errorf("undo output:\n%s", out)
	}
	if after := w.memFiles(); !maps.Equal(after, before) {
		t.Errorf("after undo:\n%v\nwant:\n%v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}
	d.stop(t)
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean after undo:\n%s", st)
	}
	w.fsck()
}

func TestCompactNeedsGitAndLLM(t *testing.T) {
	w := newWorld(t)
	w.write("user-a.md", memoryFile("user", "a", "A", "a"))
	w.write("user-b.md", memoryFile("user", "b", "B", "b"))
	if out, code := w.runCmd(nil, "compact"); code != 1 || !strings.Contains(out, "no LLM provider configured") {
		t.Errorf("no provider: exit %d:\n%s", code, out)
	}
	os.RemoveAll(filepath.Join(w.notes, ".git"))
	if out, code := w.runCmd([]string{"MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL=http://127.0.0.1:9/v1"}, "compact"); code != 1 ||
		!strings.Contains(out, "no git repository: compaction needs a checkpoint") {
		t.Errorf("no git: exit %d:\n%s", code, out)
	}
	if out, code := w.runCmd(nil, "undo"); code != 1 || !strings.Contains(out, "not inside a git repository") {
		t.Errorf("undo without git: exit %d:\n%s", code, out)
	}
}

func TestCompactForceAndMinEntries(t *testing.T) {
	w, srv, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply { return jsonPlan() })
	few := append(env, "MEMORY_COMPACT_MIN_ENTRIES=100")
	if out, code := w.runCmd(few, "compact"); code != 0 || !strings.Contains(out, "fewer than 100") || len(srv.Prompts()) != 0 {
		t.Errorf("below min entries: exit %d, %d requests:\n%s", code, len(srv.Prompts()), out)
	}
	off := append(few, "MEMORY_COMPACT_ENABLED=0")
	if out, code := w.runCmd(off, "compact"); code != 1 || !strings.Contains(out, "compaction is disabled") {
		t.Errorf("disabled: exit %d:\n%s", code, out)
	}
	if out, code := w.runCmd(off, "compact", "--force"); code != 0 || !strings.Contains(out, "nothing to compact") || len(srv.Prompts()) != 1 {
		t.Errorf("--force: exit %d, %d requests:\n%s", code, len(srv.Prompts()), out)
	}
}

func TestUndoArguments(t *testing.T) {
	w, _, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply {
		return jsonPlan(map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"})
	})
	if out, code := w.runCmd(nil, "undo"); code != 1 || !strings.Contains(out, "no compaction to undo") {
		t.Errorf("undo before any pass: exit %d:\n%s", code, out)
	}
	if out, code := w.runCmd(env, "compact"); code != 0 {
		t.Fatalf("compact: exit %d:\n%s", code, out)
	}
	pass := w.head()
	plain := w.git(w.notes, "log", "-1", "--format=%H", "--grep=^memory files$")
	if out, code := w.runCmd(nil, "undo", plain); code != 1 || !strings.Contains(out, "neither a compaction nor a checkpoint") {
		t.Errorf("undo of a plain commit: exit %d:\n%s", code, out)
	}
	if out, code := w.runCmd(nil, "undo", "0123456789abcdef"); code != 1 || !strings.Contains(out, "is not among") {
		t.Errorf("undo of an unknown commit: exit %d:\n%s", code, out)
	}
	// A later hand edit is committed first, so undo loses nothing for good.
	w.write("user-later.md", memoryFile("user", "later", "Later", "Written after the pass."))
	out, code := w.runCmd(nil, "undo", pass[:10])
	if code != 0 || !w.exists("project-old-deadline.md") || w.superseded("project-old-deadline.md") || w.exists("user-later.md") || !strings.Contains(out, "1 later commit") {
		t.Errorf("undo %s: exit %d:\n%s", pass[:10], code, out)
	}
	if !strings.Contains(w.git(w.notes, "log", "--format=%s", "-4"), "memory: update user-later.md") {
		t.Errorf("the hand edit was not committed before undo:\n%s", w.git(w.notes, "log", "--format=%s", "-4"))
	}
}

// TestDaemonCompacts: the daemon runs a pass once churn is reached, through
// the same compactor and the write lock.
func TestDaemonCompacts(t *testing.T) {
	w, srv, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply {
		return jsonPlan(map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"})
	})
	p := w.startDaemon(append(env, "MEMORY_COMPACT_CHURN=2")...)
	w.write("user-x.md", memoryFile("user", "x", "X", "Fact x."))
	w.write("user-y.md", memoryFile("user", "y", "Y", "Fact y."))
	waitFor(t, "the daemon's compaction commit", func() bool {
		return w.subjects()[0] == "memory: compaction (merged 0, superseded 1, rewrote 0, flagged 0)"
	})
	if !w.superseded("project-old-deadline.md") || len(srv.Prompts()) != 1 {
		t.Errorf("%d requests", len(srv.Prompts()))
	}
	p.stop(t)
	w.fsck()
}
