package extractor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtractWritesAtMostTwentyFiles: one answer with a thousand memories
// writes twenty; the rest are reported, not written.
func TestExtractWritesAtMostTwentyFiles(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "Remember everything about the build system please.", "Noted.")
	var props []obj
	for i := range 1000 {
		props = append(props, mem("create", "reference", fmt.Sprintf("fact-%04d", i),
			fmt.Sprintf("Build fact number %d", i), fmt.Sprintf("The build uses step %d of the pipeline for packaging %d.", i, i*7)))
	}
	e.llm.set(answerWith(props...))
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != maxChanges || len(res.Rejected) != 1000-maxChanges {
		t.Fatalf("%d written, %d rejected", len(res.Changes), len(res.Rejected))
	}
	if !strings.Contains(res.Rejected[0].Reason, "more than 20 memories in one pass") {
		t.Errorf("reason %q", res.Rejected[0].Reason)
	}
	entries, _ := os.ReadDir(e.mem)
	n := 0
	for _, d := range entries {
		if strings.HasPrefix(d.Name(), "reference-") {
			n++
		}
	}
	if n != maxChanges {
		t.Errorf("%d files on disk", n)
	}
}

// TestExtractLeavesSubfoldersAndIgnoredFilesAlone: an update of a file in a
// subfolder, or of one git ignores, is refused; so is a create git would
// ignore.
func TestExtractLeavesSubfoldersAndIgnoredFilesAlone(t *testing.T) {
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.mem, "team"), 0o755)
	shared := "---\nname: shared\ndescription: Team meets Mondays\nmetadata:\n  type: user\n---\nThe team meets on Mondays at ten.\n"
	private := "---\nname: private\ndescription: Private note\nmetadata:\n  type: user\n---\nKept on this machine only, on purpose.\n"
	e.write("team/user-shared.md", shared)
	e.write("user-private.md", private)
	os.WriteFile(filepath.Join(e.notes, ".gitignore"), []byte("memory/user-private.md\nmemory/project-secret-*.md\n"), 0o644)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "The team meets on Tuesdays now, and my private note changed.", "Noted.")
	e.llm.set(answerWith(
		mem("update", "user", "shared", "Team meets Tuesdays", "The team meets on Tuesdays at ten now."),
		mem("update", "user", "private", "Private note", "The private note now says something else entirely."),
		mem("create", "project", "secret-plan", "The secret plan", "The launch plan is kept out of git on purpose here.")))
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 || len(res.Rejected) != 3 {
		t.Fatalf("changes %+v, rejected %+v", res.Changes, res.Rejected)
	}
	if e.read("team/user-shared.md") != shared || e.read("user-private.md") != private {
		t.Error("a file in a subfolder or an ignored file was changed")
	}
	if _, err := os.Stat(filepath.Join(e.mem, "project-secret-plan.md")); err == nil {
		t.Error("a file git ignores was created")
	}
}
