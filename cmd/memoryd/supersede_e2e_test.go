package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

// TestSupersede: `add --supersedes` takes the old fact out of MEMORY.md,
// its project's index and search, in one commit of kind supersede; the old
// file stays, and show, why and search --all-versions say what replaced it
// and when; undo brings it back into the indexes and search.
func TestSupersede(t *testing.T) {
	w := newWorld(t)
	projIndex := index.ProjectIndexFile("shop-app")
	readIndex := func(name string) string {
		data, _ := os.ReadFile(filepath.Join(w.mem, name))
		return string(data)
	}
	if out, code := w.runCmd(nil, "add", "--type", "project", "--name", "release-may", "--project", "shop-app",
		"--description", "The shop release is due in May", "The shop release is due in May.\nWhy: planning meeting."); code != 0 {
		t.Fatalf("add: exit %d\n%s", code, out)
	}
	before := w.head()
	old := w.memFiles()["project-release-may.md"]
	if !strings.Contains(readIndex(projIndex), "(project-release-may.md)") {
		t.Fatalf("%s does not list the first fact:\n%s", projIndex, readIndex(projIndex))
	}
	if out, code := w.runCmd(nil, "search", "--project", "shop-app", "shop", "release"); code != 0 || !strings.Contains(out, "project-release-may.md") {
		t.Fatalf("search before: exit %d\n%s", code, out)
	}

	out, code := w.runCmd(nil, "add", "--type", "project", "--name", "release-july", "--project", "shop-app",
		"--description", "The shop release moved to July", "--supersedes", "release-may", "The shop release moved to July.\nWhy: scope grew.")
	if code != 0 || !strings.Contains(out, "project-release-may.md is superseded") {
		t.Fatalf("add --supersedes: exit %d\n%s", code, out)
	}
	today := time.Now().Format(time.DateOnly)

	// One commit, of kind supersede, holding both files.
	if s := w.subjects()[0]; s != "memory: supersede project-release-may.md with project-release-july.md (cli)" {
		t.Errorf("subject %q", s)
	}
	if got := w.git(w.notes, "log", "-1", "--format=%(trailers:key=Memoryd-Kind,valueonly)"); got != "supersede" {
		t.Errorf("kind %q", got)
	}
	if got := w.git(w.notes, "rev-parse", "HEAD^"); got != before {
		t.Errorf("the supersession took more than one commit")
	}
	changed := w.git(w.notes, "diff", "--name-only", "HEAD^", "HEAD")
	for _, f := range []string{"memory/project-release-may.md", "memory/project-release-july.md", "memory/" + projIndex} {
		if !strings.Contains(changed, f) {
			t.Errorf("the commit lacks %s:\n%s", f, changed)
		}
	}

	// The old file stays, marked; it is in no index.
	m, err := index.Parse("project-release-may.md", []byte(w.memFiles()["project-release-may.md"]))
	if err != nil || m.SupersededBy != "project-release-july.md" || m.SupersededAt != today || m.Body != "The shop release is due in May.\nWhy: planning meeting.\n" {
		t.Fatalf("old file: %v %+v\n%s", err, m, w.memFiles()["project-release-may.md"])
	}
	for _, name := range []string{index.IndexFile, projIndex} {
		if idx := readIndex(name); strings.Contains(idx, "project-release-may.md") {
			t.Errorf("%s still lists the superseded fact:\n%s", name, idx)
		}
	}
	if !strings.Contains(readIndex(projIndex), "(project-release-july.md)") {
		t.Errorf("%s does not list the new fact:\n%s", projIndex, readIndex(projIndex))
	}
	if out, _ := w.runCmd(nil, "list", "--all"); strings.Contains(out, "project-release-may.md") {
		t.Errorf("list shows the superseded fact:\n%s", out)
	}

	// Search: not without --all-versions; with it, marked.
	if out, code := w.runCmd(nil, "search", "--project", "shop-app", "shop", "release", "may"); code != 0 ||
		strings.Contains(out, "project-release-may.md") || !strings.Contains(out, "project-release-july.md") {
		t.Errorf("search: exit %d\n%s", code, out)
	}
	if out, code := w.runCmd(nil, "search", "--project", "shop-app", "--all-versions", "shop", "release", "may"); code != 0 ||
		!strings.Contains(out, "project-release-may.md") || !strings.Contains(out, "superseded by project-release-july.md") {
		t.Errorf("search --all-versions: exit %d\n%s", code, out)
	}
	out, _ = w.runCmd(nil, "search", "--project", "shop-app", "--all-versions", "--json", "may")
	var hits []struct {
		File         string `json:"file"`
		SupersededBy string `json:"supersededBy"`
	}
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) == 0 || hits[0].File != "project-release-may.md" || hits[0].SupersededBy != "project-release-july.md" {
		t.Errorf("search --json --all-versions: %v %+v\n%s", err, hits, out)
	}

	// show and why still read it, and say what replaced it and when.
	want := "superseded by project-release-july.md on " + today
	for _, cmd := range []string{"show", "why"} {
		if out, code := w.runCmd(nil, cmd, "release-may"); code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "due in May") {
			t.Errorf("%s: exit %d, want %q:\n%s", cmd, code, want, out)
		}
	}
	if out, _ := w.runCmd(nil, "show", "release-may", "--json"); !strings.Contains(out, `"supersededBy": "project-release-july.md"`) ||
		!strings.Contains(out, `"supersededAt": "`+today+`"`) {
		t.Errorf("show --json:\n%s", out)
	}
	if out, _ := w.runCmd(nil, "history"); !strings.Contains(out, "supersede") {
		t.Errorf("history:\n%s", out)
	}

	// Refusals: a fact already superseded, and --replace with --supersedes.
	if out, code := w.runCmd(nil, "add", "--type", "project", "--name", "release-june", "--project", "shop-app",
		"--description", "June", "--supersedes", "release-may", "June."); code == 0 || !strings.Contains(out, "already superseded by project-release-july.md") {
		t.Errorf("superseding a superseded fact: exit %d\n%s", code, out)
	}

	// undo: the old fact is back, as it was, in the indexes and search.
	if out, code := w.runCmd(nil, "undo"); code != 0 || !strings.Contains(out, "supersede project-release-may.md") {
		t.Fatalf("undo: exit %d\n%s", code, out)
	}
	if got := w.memFiles()["project-release-may.md"]; got != old || w.exists("project-release-july.md") {
		t.Errorf("after undo the old file is:\n%s\nwant:\n%s", got, old)
	}
	for _, name := range []string{projIndex} {
		if idx := readIndex(name); !strings.Contains(idx, "(project-release-may.md)") || strings.Contains(idx, "release-july") {
			t.Errorf("%s after undo:\n%s", name, idx)
		}
	}
	if !strings.Contains(w.show("memory/"+projIndex), "(project-release-may.md)") {
		t.Error("the committed project index does not list the fact undo brought back")
	}
	if out, code := w.runCmd(nil, "search", "--project", "shop-app", "shop", "release", "may"); code != 0 || !strings.Contains(out, "project-release-may.md") {
		t.Errorf("search after undo: exit %d\n%s", code, out)
	}
	w.fsck()
}

// TestMCPSaveSupersedes: memory_save's supersedes argument supersedes the
// old fact; memory_search no longer returns it (but does with
// all_versions, marked), memory_read says what replaced it.
func TestMCPSaveSupersedes(t *testing.T) {
	w := newWorld(t)
	w.write("user-editor.md", memoryFile("user", "editor", "Edits code in vim", "Ana edits code in vim."))
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "facts")
	cs, _ := w.mcpSession(w.home, "claude-code")
	out, isErr := callTool(t, cs, "memory_save", map[string]any{"type": "user", "name": "editor-helix",
		"description": "Edits code in helix now", "body": "Ana moved from vim to helix.", "supersedes": "user-editor.md"})
	if isErr || !strings.Contains(out, "user-editor.md is superseded by it") {
		t.Fatalf("save: %s", out)
	}
	if s := w.subjects()[0]; s != "memory: supersede user-editor.md with user-editor-helix.md (mcp: claude-code)" {
		t.Errorf("subject %q", s)
	}
	if got := w.git(w.notes, "log", "-1", "--format=%(trailers:key=Memoryd-Writer,valueonly)"); got != "model" {
		t.Errorf("writer %q", got)
	}
	if out, _ := callTool(t, cs, "memory_search", map[string]any{"query": "edits code"}); strings.Contains(out, "user-editor.md") || !strings.Contains(out, "user-editor-helix.md") {
		t.Errorf("search:\n%s", out)
	}
	if out, _ := callTool(t, cs, "memory_search", map[string]any{"query": "edits code vim", "all_versions": true}); !strings.Contains(out, "user-editor.md") ||
		!strings.Contains(out, "superseded by user-editor-helix.md") {
		t.Errorf("search with all_versions:\n%s", out)
	}
	if out, _ := callTool(t, cs, "memory_read", map[string]any{"file": "user-editor.md"}); !strings.Contains(out, "Superseded by user-editor-helix.md") {
		t.Errorf("read:\n%s", out)
	}
	if strings.Contains(w.index(), "user-editor.md") {
		t.Errorf("MEMORY.md:\n%s", w.index())
	}
}
