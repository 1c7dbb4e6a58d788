package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addFact runs memoryd add and fails the test when it fails.
func addFact(t *testing.T, w *world, typ, name, desc, body string, extra ...string) {
	t.Helper()
	args := append([]string{"add", "--type", typ, "--name", name, "--description", desc}, extra...)
	if out, code := w.runCmd(nil, append(args, body)...); code != 0 {
		t.Fatalf("add %s: %d\n%s", name, code, out)
	}
}

// TestSearchAndList: the memory commands find facts by their words, the
// current project's first, and never another project's without --all;
// the search index is a cache that may be deleted, corrupted or stale.
func TestSearchAndList(t *testing.T) {
	w := newWorld(t)
	addFact(t, w, "feedback", "indent-with-tabs", "Indent with tabs", "Always use tabs, never spaces.")
	addFact(t, w, "reference", "style-guide", "Where the style guide lives", "The style guide says to indent Go code with gofmt.")
	addFact(t, w, "project", "alpha-deploy", "Alpha deploys with make ship", "Deploy alpha with make ship; tabs in the Makefile.", "--project", "alpha")
	addFact(t, w, "project", "beta-deploy", "Beta deploys with kubectl", "Deploy beta with kubectl apply; tabs in YAML break it.", "--project", "beta")

	out, code := w.runCmd(nil, "search", "--project", "alpha", "indenting")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.HasPrefix(lines[0], "feedback-indent-with-tabs.md") || strings.Contains(out, "beta-deploy") {
		t.Fatalf("search indenting (a name hit first, stemming, no other project):\n%s", out)
	}
	if out, code := w.runCmd(nil, "search", "--", "?!"); code != 2 || !strings.Contains(out, `give words to search for: "?!" has no letters or digits`) {
		t.Fatalf("search of no words: %d\n%s", code, out)
	}
	out, _ = w.runCmd(nil, "search", "--project", "alpha", "deploy")
	if !strings.HasPrefix(out, "project-alpha-deploy.md") || strings.Contains(out, "beta") {
		t.Fatalf("search deploy in alpha:\n%s", out)
	}
	out, _ = w.runCmd(nil, "search", "--project", "alpha", "--all", "kubectl")
	if !strings.Contains(out, "project-beta-deploy.md") {
		t.Fatalf("search --all:\n%s", out)
	}
	out, _, _ = w.runCmd2(nil, "search", "--project", "alpha", "--json", "deploy")
	if !strings.Contains(out, `"file": "project-alpha-deploy.md"`) || !strings.Contains(out, `"snippet": "Deploy alpha`) {
		t.Fatalf("search --json (keys as list --json has them):\n%s", out)
	}
	out, _, _ = w.runCmd2(nil, "list", "--project", "alpha", "--json")
	if !strings.Contains(out, `"file": "`) {
		t.Fatalf("list --json:\n%s", out)
	}
	var list []struct{ File, Project string }
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	for _, f := range list {
		if f.Project == "beta" {
			t.Fatalf("list shows another project's fact: %s", out)
		}
	}

	// The cache: deleted, corrupted, stale after files arrive while no daemon runs.
	db := filepath.Join(w.stateDir(), "search.db")
	os.Remove(db)
	if out, code := w.runCmd(nil, "search", "gofmt"); code != 0 || !strings.Contains(out, "reference-style-guide.md") {
		t.Fatalf("after deleting the index: %d\n%s", code, out)
	}
	os.WriteFile(db, []byte("this is not a database, just garbage bytes"), 0o600)
	if out, code := w.runCmd(nil, "search", "gofmt"); code != 0 || !strings.Contains(out, "reference-style-guide.md") {
		t.Fatalf("after corrupting the index: %d\n%s", code, out)
	}
	w.write("user-editor.md", memoryFile("user", "editor", "Uses helix", "Uses the helix editor for everything."))
	if out, code := w.runCmd(nil, "search", "helix"); code != 0 || !strings.Contains(out, "user-editor.md") {
		t.Fatalf("a file that came while no daemon ran: %d\n%s", code, out)
	}
	if out, code := w.runCmd(nil, "search"); code != 2 {
		t.Fatalf("search without words: %d\n%s", code, out)
	}
}

// TestSearchSeesWritesAtOnce: while a daemon runs, a search trusts the
// daemon to keep the index current — here it is made slow to index — yet a
// search right after add, forget or undo answers as the files are, because
// those commands bring the index up to date themselves.
func TestSearchSeesWritesAtOnce(t *testing.T) {
	w := newWorld(t)
	addFact(t, w, "user", "editor", "Uses helix", "Uses the helix editor for everything.")
	if out, code := w.runCmd(nil, "search", "helix"); code != 0 || !strings.Contains(out, "user-editor.md") {
		t.Fatalf("search before the daemon (builds the index): %d\n%s", code, out)
	}
	p := w.start([]string{"MEMORY_INDEX_DEBOUNCE_MS=600000"}, "run")
	waitFor(t, "the daemon's status", func() bool { return w.status().PID == p.cmd.Process.Pid })

	search := func(words string) string {
		t.Helper()
		out, code := w.runCmd(nil, "search", words)
		if code != 0 && code != 1 {
			t.Fatalf("search %s: exit %d\n%s", words, code, out)
		}
		return out
	}
	addFact(t, w, "user", "shell", "Uses fish", "Uses the fish shell, not bash.")
	if out := search("fish"); !strings.Contains(out, "user-shell.md") {
		t.Fatalf("search right after add:\n%s", out)
	}
	if out, code := w.runCmd(nil, "forget", "--reason", "switched to zsh", "shell"); code != 0 {
		t.Fatalf("forget: %d\n%s", code, out)
	}
	if out := search("fish"); strings.Contains(out, "user-shell.md") {
		t.Fatalf("search right after forget still finds it:\n%s", out)
	}
	if out, code := w.runCmd(nil, "undo"); code != 0 {
		t.Fatalf("undo: %d\n%s", code, out)
	}
	if out := search("fish"); !strings.Contains(out, "user-shell.md") {
		t.Fatalf("search right after undo:\n%s", out)
	}
	if st := w.status(); !st.Index.RebuiltAt.IsZero() {
		t.Fatalf("the daemon indexed meanwhile (rebuilt at %v): the test proves nothing", st.Index.RebuiltAt)
	}
	p.stop(t)
}
