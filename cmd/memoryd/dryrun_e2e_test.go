package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/state"
)

// The dry runs of import and extract run their real path on a dry-run
// transaction (folder.Folder.BeginDryRun). Each test here fails if a dry
// run wrote anything, and checks that the real run then applies the plan
// the dry run printed.

// untouched records the notes repository's files (.git aside), its HEAD and
// git status, and the state folder's watermarks and compaction record; the
// check it returns fails the test if any differs. (The state folder's log,
// token ledger and lock files are not a dry run's to keep: the model's
// tokens are spent.)
func (w *world) untouched(t *testing.T) func(what string) {
	t.Helper()
	files := func() map[string]string {
		m := map[string]string{}
		for _, name := range []string{state.WatermarksFile, state.CompactionFile} {
			data, _ := os.ReadFile(filepath.Join(w.stateDir(), name))
			m[name] = string(data)
		}
		for _, root := range []string{w.notes} {
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					return nil
				case d.IsDir() && d.Name() == ".git":
					return filepath.SkipDir
				case !d.IsDir():
					data, _ := os.ReadFile(p)
					m[p] = string(data)
				}
				return nil
			})
		}
		return m
	}
	before, head, status := files(), w.head(), w.git(w.notes, "status", "--porcelain")
	return func(what string) {
		t.Helper()
		after := files()
		for p, v := range after {
			if b, ok := before[p]; !ok || b != v {
				t.Errorf("%s wrote %s", what, p)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				t.Errorf("%s removed %s", what, p)
			}
		}
		if w.head() != head || w.git(w.notes, "status", "--porcelain") != status {
			t.Errorf("%s changed git: HEAD %s, status:\n%s", what, w.head(), w.git(w.notes, "status", "--porcelain"))
		}
	}
}

// lines is the submatches 1 of re in out, in order.
func lines(out, re string) []string {
	var got []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(out, -1) {
		got = append(got, m[1])
	}
	return got
}

// TestImportDryRunIsTheRealPlan: a dry import names the files the import
// then writes (a name another fact holds gets its numbered suffix in both)
// and writes nothing.
func TestImportDryRunIsTheRealPlan(t *testing.T) {
	w := newWorld(t)
	w.write("feedback-testing.md", memoryFile("feedback", "testing", "Tests first", "Write the test first."))
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "a fact")
	mem := filepath.Join(w.home, ".claude", "projects", encodeClaude(filepath.Join(w.home, "src", "app")), "memory")
	os.MkdirAll(mem, 0o755)
	os.WriteFile(filepath.Join(mem, "feedback_testing.md"), []byte(claudeMemoryFile("testing", "Run make check", "feedback", "Run make check before pushing.")), 0o644)
	os.WriteFile(filepath.Join(mem, "user_role.md"), []byte(claudeMemoryFile("role", "Go engineer", "user", "Writes Go.")), 0o644)

	check := w.untouched(t)
	out, code := w.runCmd(nil, "import", "claude", "--dry-run")
	check("import --dry-run")
	planned := lines(out, `(?m)^would import (\S+)`)
	if code != 0 || len(planned) != 2 || !slices.Contains(planned, "feedback-testing-2.md") {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	out, code = w.runCmd(nil, "import", "claude")
	if got := lines(out, `(?m)^import +(\S+)`); code != 0 || !slices.Equal(got, planned) {
		t.Fatalf("the import wrote %q, the dry run planned %q\n%s", got, planned, out)
	}
	committed := strings.Fields(w.git(w.notes, "show", "--name-only", "--format=", "HEAD"))
	for _, f := range planned {
		if !slices.Contains(committed, "memory/"+f) {
			t.Errorf("%s not in the import's commit %q", f, committed)
		}
	}
}

// TestExtractDryRunIsTheRealPlan: a dry extraction of a pass that creates
// one fact and would drop a hand-written line of another (so proposes the
// update for review) prints both changes with their text, leaves the
// folder, git and the watermarks alone, and the pass then writes those
// changes.
func TestExtractDryRunIsTheRealPlan(t *testing.T) {
	w := newOCWorld(t)
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Edits in vim."))
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "a fact")
	w.answer(answerMemories(
		memJSON("create", "feedback", "small-commits", "Prefers small commits", "Make small, focused commits."),
		memJSON("update", "user", "editor", "Uses helix", "Edits in helix now, not vim.")))
	w.opencode("", "I prefer small commits, and I moved from vim to helix.")

	check := w.untouched(t)
	out, code := w.runCmd(nil, "extract", "--dry-run")
	check("extract --dry-run")
	planned := lines(out, `(?m)^  would (\w+ \S+)`)
	if code != 0 || !slices.Equal(planned, []string{"create feedback-small-commits.md", "propose _inbox/user-editor.md"}) || !strings.Contains(out, "| Edits in helix now") {
		t.Fatalf("dry run: exit %d, planned %q\n%s", code, planned, out)
	}
	out, code = w.runCmd(nil, "extract")
	var done []string
	for _, l := range lines(out, `(?m)^  (\w+d \S+)`) {
		verb, file, _ := strings.Cut(l, " ")
		done = append(done, strings.TrimSuffix(verb, "d")+" "+file)
	}
	if code != 0 || !slices.Equal(done, planned) {
		t.Fatalf("the pass wrote %q, the dry run planned %q\n%s", done, planned, out)
	}
	if !strings.Contains(w.show("memory/_inbox/user-editor.md"), "Edits in helix now") {
		t.Errorf("the proposal is not in the commit:\n%s", out)
	}
}

// TestCompactDryRunIsTheRealPlan: a dry compaction (merge, supersession,
// rewrite, flag, a refused delete) writes nothing — not the folder, git or
// the day's bound — and names the ops the pass then applies and skips.
func TestCompactDryRunIsTheRealPlan(t *testing.T) {
	w, _, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply {
		return jsonPlan(append(goodPlan(), map[string]any{"op": "delete", "file": "project-freeze.md"})...)
	})
	check := w.untouched(t)
	out, code := w.runCmd(env, "compact", "--dry-run")
	check("compact --dry-run")
	planned := lines(out, `(?m)^would ((?:apply|skip): .*)$`)
	if code != 0 || len(planned) != 5 || !w.compactState().LastPassAt.IsZero() {
		t.Fatalf("dry run: exit %d, planned %q\n%s", code, planned, out)
	}
	out, code = w.runCmd(env, "compact")
	done := lines(out, `(?m)^((?:applied|skipped): .*)$`)
	for i := range done {
		done[i] = strings.Replace(strings.Replace(done[i], "applied:", "apply:", 1), "skipped:", "skip:", 1)
	}
	if code != 0 || !slices.Equal(done, planned) {
		t.Fatalf("the pass did %q, the dry run planned %q\n%s", done, planned, out)
	}
}
