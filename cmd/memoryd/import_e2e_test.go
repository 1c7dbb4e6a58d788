package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeMemoryFile is a fact as Claude Code's auto-memory writes it.
func claudeMemoryFile(name, desc, typ, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\ntype: " + typ + "\n---\n\n" + body + "\n"
}

// encodeClaude is a path as Claude Code names its project folder.
func encodeClaude(p string) string {
	b := []byte(p)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// TestImportClaude imports the auto-memory of three Claude Code projects:
// one whose transcripts name its directory, one found on disk from its
// folder name alone ("my-app", not "app"), one known only by a transcript
// of a directory gone from this machine. Facts get their project's slug
// (user facts none), duplicates and unreadable files are skipped with a
// reason, a dry run writes nothing, the import is one commit, a second
// import finds nothing new, and Claude Code's files are never touched.
func TestImportClaude(t *testing.T) {
	w := newWorld(t)
	w.write("feedback-tabs.md", memoryFile("feedback", "tabs", "Prefers tabs", "Use tabs, never spaces."))
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "a fact")

	shop := filepath.Join(w.home, "src", "Shop_Front")
	myApp := filepath.Join(w.home, "src", "my-app")
	for _, d := range []string{shop, myApp} {
		os.MkdirAll(d, 0o755)
		w.git(d, "init", "-q")
	}
	projects := filepath.Join(w.home, ".claude", "projects")
	put := func(folder, name, data string) {
		p := filepath.Join(projects, folder, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shopDir := encodeClaude(shop)
	put(shopDir, "1b2c.jsonl", `{"type":"summary"}`+"\n"+`{"type":"user","cwd":"`+shop+`","message":{}}`+"\n")
	put(shopDir, "memory/MEMORY.md", "# Memory\n- [Role](user_role.md)\n")
	put(shopDir, "memory/user_role.md", claudeMemoryFile("user_role", "Backend engineer who works in Go", "user", "Senior backend engineer; Go and Postgres."))
	put(shopDir, "memory/feedback_testing.md", claudeMemoryFile("testing approach", "Run the integration tests before pushing", "feedback", "Always run make integration before git push."))
	put(shopDir, "memory/feedback_tabs.md", claudeMemoryFile("tabs", "Tabs please", "feedback", "Use tabs, never spaces."))
	put(shopDir, "memory/notes.md", "just some text, no frontmatter\n")
	put(encodeClaude(myApp), "memory/project_deploy.md", claudeMemoryFile("deploy", "Deploys with make ship", "project", "make ship from the root."))
	gone := filepath.Join(w.home, "old", "Legacy.Tool")
	put(encodeClaude(gone), "s.jsonl", `{"cwd":"`+gone+`"}`+"\n")
	put(encodeClaude(gone), "memory/reference_wiki.md", claudeMemoryFile("wiki", "The wiki is at wiki.example.com", "reference", "See the wiki."))

	claudeFiles := func() map[string]string {
		m := map[string]string{}
		filepath.WalkDir(filepath.Join(w.home, ".claude"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				fi, _ := d.Info()
				m[p] = string(data) + fi.ModTime().String() + fi.Mode().String()
			}
			return nil
		})
		return m
	}
	before, head := claudeFiles(), w.head()

	out, code := w.runCmd(nil, "import", "claude", "--dry-run")
	if code != 0 || !strings.Contains(out, "dry run: 4 facts would be imported") {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	if w.head() != head || len(w.git(w.notes, "status", "--porcelain")) != 0 {
		t.Fatalf("a dry run changed the folder:\n%s", w.git(w.notes, "status", "--porcelain"))
	}

	out, code = w.runCmd(nil, "import", "claude")
	if code != 0 || !strings.Contains(out, "imported 4 facts (commit ") {
		t.Fatalf("import: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"import    user-user-role.md (global) from ~/.claude/projects/",
		"import    feedback-testing-approach.md (project shop-front)",
		"import    project-deploy.md (project my-app)",
		"import    reference-wiki.md (project legacy-tool)",
		"feedback_tabs.md: duplicates another fact feedback-tabs.md",
		"memory/notes.md: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if got := w.subjects(); got[0] != "memory: import 4 facts from Claude Code" || got[1] != "a fact" {
		t.Fatalf("commits %q", got)
	}
	fact := w.show("memory/feedback-testing-approach.md")
	for _, s := range []string{"name: testing-approach", "description: Run the integration tests before pushing", "project: shop-front", "agent: claude-code", "cwd: " + shop, "Always run make integration"} {
		if !strings.Contains(fact, s) {
			t.Errorf("imported fact lacks %q:\n%s", s, fact)
		}
	}
	if strings.Contains(w.show("memory/user-user-role.md"), "project:") {
		t.Errorf("a user fact got a project:\n%s", w.show("memory/user-user-role.md"))
	}
	if idx := w.show("memory/MEMORY.shop-front.md"); !strings.Contains(idx, "feedback-testing-approach.md") {
		t.Errorf("the project index in the commit:\n%s", idx)
	}

	out, code = w.runCmd(nil, "import", "claude")
	if code != 0 || !strings.Contains(out, "nothing new to import") || w.subjects()[0] != "memory: import 4 facts from Claude Code" {
		t.Fatalf("second import: exit %d\n%s", code, out)
	}
	after := claudeFiles()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("Claude Code's %s changed", p)
		}
	}
	if len(after) != len(before) {
		t.Errorf("files appeared in Claude Code's folder")
	}
}
