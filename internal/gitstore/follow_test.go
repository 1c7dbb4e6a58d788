package gitstore

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

func TestFileLogFollowsRenames(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "user-a.md"), "one\n")
	first := commitAll(t, root, "memory: add user-a.md (cli)")
	write(t, filepath.Join(dir, "user-b.md"), "other\n")
	commitAll(t, root, "unrelated")
	cli(t, root, "mv", "memory/user-a.md", "memory/user-renamed.md")
	write(t, filepath.Join(dir, "user-renamed.md"), "one\ntwo\n")
	last := commitAll(t, root, "memory: update user-renamed.md")
	r := open(t, dir)
	log, err := r.FileLog(context.Background(), "user-renamed.md", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Hash != last || log[1].Hash != first || log[1].Files[0] != "user-a.md" || log[0].Files[0] != "user-renamed.md" {
		t.Fatalf("FileLog = %+v", log)
	}
	data, err := r.Show(context.Background(), first, "user-a.md")
	if err != nil || string(data) != "one\n" {
		t.Fatalf("Show = %q, %v", data, err)
	}
}

// TestFileLogDeletedAndRestored: a small fact deleted and brought back
// keeps its own history; another fact that looks like it (git log --follow
// takes it for a copy) is not its origin.
func TestFileLogDeletedAndRestored(t *testing.T) {
	root, dir := newRepo(t, "memory")
	// Facts as memoryd writes them: most of their lines are alike.
	fact := func(typ, name, desc, body string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\nmetadata:\n  type: " + typ + "\n  updated: 2026-11-23\n" +
			"  source:\n    - agent: cli\n      at: \"2026-11-23T23:40:58Z\"\n      cwd: /home/ana/notes\n      host: vm\n---\n" + body + "\n"
	}
	tabs := fact("feedback", "prefers-tabs", "Indent with tabs in Go code", "Use tabs.")
	editor := fact("user", "editor", "Uses vim with a plugin", "The user edits in vim.")
	write(t, filepath.Join(dir, "feedback-tabs.md"), tabs)
	commitAll(t, root, "memory: add feedback-tabs.md")
	write(t, filepath.Join(dir, "user-editor.md"), editor)
	add := commitAll(t, root, "memory: add user-editor.md")
	write(t, filepath.Join(dir, "feedback-tabs.md"), tabs+"Also gofumpt.\n")
	commitAll(t, root, "memory: update feedback-tabs.md")
	remove(t, filepath.Join(dir, "user-editor.md"))
	forget := commitAll(t, root, "memory: forget user-editor.md")
	write(t, filepath.Join(dir, "user-editor.md"), editor)
	undo := commitAll(t, root, "memory: undo the forget")

	log, err := open(t, dir).FileLog(context.Background(), "user-editor.md", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range log {
		got = append(got, c.Hash)
		if c.Files[0] != "user-editor.md" {
			t.Errorf("%s: path %q", c.Subject, c.Files[0])
		}
	}
	if want := []string{undo, forget, add}; !slices.Equal(got, want) {
		t.Errorf("FileLog = %v, want %v (%+v)", got, want, log)
	}
	if log, _ := open(t, dir).FileLog(context.Background(), "user-editor.md", 2); len(log) != 2 {
		t.Errorf("FileLog(n=2): %d commits", len(log))
	}
}
