package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// citeProject makes the project repository "app" under the world's home:
// src/app.go and ship.sh, committed.
func citeProject(t *testing.T, w *world) string {
	t.Helper()
	app := filepath.Join(w.home, "src", "app")
	os.MkdirAll(filepath.Join(app, "src"), 0o755)
	w.write("app.go", "package main\n\nfunc main() { readConfig() }\n", filepath.Join(app, "src"))
	w.write("ship.sh", "#!/bin/sh\nmake ship\n", app)
	w.write("outside.txt", "not the project's\n", w.home)
	w.git(app, "init", "-q")
	w.git(app, "add", "-A")
	w.git(app, "commit", "-qm", "start")
	return app
}

// TestCitesMarkStale: a fact that cites a file of its project is marked
// "may be stale" wherever it is used — context, search (text and JSON),
// list, show, recall, MCP memory_search and memory_read, check — once the
// file changes in a commit or is deleted; `check --confirm` and an edit
// record the file's version anew and the mark goes; a fact that cites
// nothing is never marked; a cited path outside the project's root, or
// missing, is refused and nothing is written.
func TestCitesMarkStale(t *testing.T) {
	w := newWorld(t)
	app := citeProject(t, w)
	today := time.Now().Format(time.DateOnly)
	add := func(name, desc, body string, extra ...string) (string, int) {
		args := append([]string{"add", "--type", "project", "--name", name, "--description", desc}, extra...)
		out, errOut, code := w.runIn(app, "", nil, append(args, body)...)
		return out + errOut, code
	}
	if out, code := add("entry", "The app starts in main, which reads the config first", "main in src/app.go calls readConfig before anything else.", "--cites", "src/app.go#main"); code != 0 {
		t.Fatalf("add --cites: %d\n%s", code, out)
	}
	if out, code := add("ship", "Shipping runs make ship", "ship.sh runs make ship.", "--cites", "ship.sh"); code != 0 {
		t.Fatalf("add --cites: %d\n%s", code, out)
	}
	if out, code := add("style", "The app keeps one package", "Everything is in package main; no internal packages."); code != 0 {
		t.Fatalf("add: %d\n%s", code, out)
	}
	blob := w.git(app, "rev-parse", "HEAD:src/app.go")
	entry, _ := os.ReadFile(filepath.Join(w.mem, "project-entry.md"))
	if !strings.Contains(string(entry), "cites:\n    - src/app.go@"+blob+"#main\n") {
		t.Fatalf("the fact does not record the file's blob %s:\n%s", blob, entry)
	}

	// Refused: outside the root, through a link out, missing; nothing written.
	os.Symlink(filepath.Join(w.home, "outside.txt"), filepath.Join(app, "link.txt"))
	for _, p := range []string{"../../outside.txt", filepath.Join(w.home, "outside.txt"), "link.txt", "nothing.go"} {
		out, code := add("refused", "A fact that cites "+p, "It cites "+p+".", "--cites", p)
		if code == 0 || !strings.Contains(out, "cannot be cited") || !strings.Contains(out, "nothing was written") {
			t.Fatalf("--cites %s: %d\n%s", p, code, out)
		}
		if _, err := os.Stat(filepath.Join(w.mem, "project-refused.md")); err == nil {
			t.Fatalf("--cites %s wrote the fact", p)
		}
	}

	marked := func(what, text string) {
		t.Helper()
		if !strings.Contains(text, "may be stale: src/app.go changed since "+today) ||
			!strings.Contains(text, "may be stale: ship.sh deleted or moved since "+today) {
			t.Fatalf("%s does not mark the stale facts:\n%s", what, text)
		}
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "style") && strings.Contains(line, "may be stale") {
				t.Fatalf("%s marks the fact that cites nothing:\n%s", what, text)
			}
		}
	}
	unmarked := func(what, text string) {
		t.Helper()
		if strings.Contains(text, "may be stale") {
			t.Fatalf("%s marks a fact before any change:\n%s", what, text)
		}
	}
	ctxOut, _, _ := w.runIn(app, "", nil, "context")
	unmarked("context", ctxOut)
	if out, errOut, code := w.runIn(app, "", nil, "check"); code != 0 || !strings.Contains(out, "2 facts cite files; none changed") {
		t.Fatalf("check before any change: %d\n%s%s", code, out, errOut)
	}

	// The project moves on: the cited file changes in a commit, another
	// is deleted.
	w.write("app.go", "package main\n\nfunc main() { loadEnv() }\n", filepath.Join(app, "src"))
	os.Remove(filepath.Join(app, "ship.sh"))
	w.git(app, "commit", "-qam", "env instead of config; no ship.sh")

	ctxOut, _, _ = w.runIn(app, "", nil, "context")
	marked("context", ctxOut)
	if !strings.Contains(ctxOut, "(project-entry.md) — The app starts in main, which reads the config first (may be stale: src/app.go changed since "+today+")") {
		t.Fatalf("context does not mark the fact's own line:\n%s", ctxOut)
	}
	searchOut, _, _ := w.runIn(app, "", nil, "search", "main", "config", "ship", "package")
	marked("search", searchOut)
	listOut, _, _ := w.runIn(app, "", nil, "list")
	marked("list", listOut)
	showOut, _, _ := w.runIn(app, "", nil, "show", "entry")
	if !strings.Contains(showOut, "may be stale: src/app.go changed since "+today) {
		t.Fatalf("show:\n%s", showOut)
	}
	if out, _, _ := w.runIn(app, "", nil, "show", "style"); strings.Contains(out, "may be stale") {
		t.Fatalf("show of the fact that cites nothing:\n%s", out)
	}
	jsonOut, _, _ := w.runIn(app, "", nil, "search", "--json", "main", "config", "package")
	var hits []struct {
		File       string                                 `json:"file"`
		Stale      bool                                   `json:"stale"`
		StaleCites []struct{ Path, Change, Since string } `json:"staleCites"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &hits); err != nil {
		t.Fatalf("search --json: %v\n%s", err, jsonOut)
	}
	seen := 0
	for _, h := range hits {
		switch h.File {
		case "project-entry.md":
			seen++
			if !h.Stale || len(h.StaleCites) != 1 || h.StaleCites[0].Path != "src/app.go" || h.StaleCites[0].Change != "changed" || h.StaleCites[0].Since != today {
				t.Fatalf("search --json of the stale fact: %+v\n%s", h, jsonOut)
			}
		case "project-style.md":
			seen++
			if h.Stale || h.StaleCites != nil {
				t.Fatalf("search --json marks the fact that cites nothing:\n%s", jsonOut)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("search --json did not find both facts:\n%s", jsonOut)
	}

	// MCP, from the project's directory.
	cs, _ := w.mcpSession(app, "test-agent")
	out, _ := callTool(t, cs, "memory_search", map[string]any{"query": "main config ship package"})
	marked("memory_search", out)
	out, _ = callTool(t, cs, "memory_read", map[string]any{"file": "entry"})
	if !strings.Contains(out, "may be stale: src/app.go changed since "+today) {
		t.Fatalf("memory_read:\n%s", out)
	}
	if out, _ = callTool(t, cs, "memory_read", map[string]any{"file": "style"}); strings.Contains(out, "may be stale") {
		t.Fatalf("memory_read of the fact that cites nothing:\n%s", out)
	}
	if out, isErr := callTool(t, cs, "memory_save", map[string]any{"type": "project", "name": "leak", "description": "Cites a file out of the project",
		"body": "It cites a file outside.", "cites": []string{"../../outside.txt"}}); !isErr || !strings.Contains(out, "outside the project's root") {
		t.Fatalf("memory_save with a cite outside the root: %v\n%s", isErr, out)
	}
	if out, isErr := callTool(t, cs, "memory_save", map[string]any{"type": "project", "name": "env", "description": "main loads the environment",
		"body": "main calls loadEnv.", "cites": []string{"src/app.go", "src/app.go@0000000000000000000000000000000000000000"}}); isErr {
		t.Fatalf("memory_save with cites: %s", out)
	}
	env, _ := os.ReadFile(filepath.Join(w.mem, "project-env.md"))
	if blob := w.git(app, "rev-parse", "HEAD:src/app.go"); !strings.Contains(string(env), "cites:\n    - src/app.go@"+blob+"\n---") {
		t.Fatalf("memory_save's cite: the blob must be memoryd's (%s), once:\n%s", blob, env)
	}

	// check: exit 1, the stale facts, JSON.
	out, errOut, code := w.runIn(app, "", nil, "check")
	if code != 1 || !strings.Contains(out, "project-entry.md  may be stale: src/app.go changed") || !strings.Contains(out, "project-ship.md  may be stale: ship.sh deleted") || strings.Contains(out, "style") {
		t.Fatalf("check: %d\n%s%s", code, out, errOut)
	}
	out, _, code = w.runIn(app, "", nil, "check", "--json")
	var report struct {
		Stale []struct {
			File    string
			Changes []struct{ Path, Change, Since string }
		}
		Checked int
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 1 || len(report.Stale) != 2 || report.Checked != 3 {
		t.Fatalf("check --json: %d %v\n%s", code, err, out)
	}

	// Confirm: recorded through the write transaction, in a commit of
	// its own; the mark goes everywhere.
	if out, errOut, code := w.runIn(app, "", nil, "check", "--confirm", "entry"); code != 0 || !strings.Contains(out, "confirmed") {
		t.Fatalf("check --confirm: %d\n%s%s", code, out, errOut)
	}
	if s := w.subjects()[0]; s != "memory: confirm project-entry.md (cli)" {
		t.Fatalf("confirm's commit: %q", s)
	}
	if msg := w.git(w.notes, "log", "-1", "--format=%B"); !strings.Contains(msg, "Memoryd-Kind: confirm") {
		t.Fatalf("confirm's commit message:\n%s", msg)
	}
	ctxOut, _, _ = w.runIn(app, "", nil, "context")
	if strings.Contains(ctxOut, "src/app.go changed") || !strings.Contains(ctxOut, "ship.sh deleted or moved") {
		t.Fatalf("context after confirming the entry fact:\n%s", ctxOut)
	}
	if out, _ := callTool(t, cs, "memory_read", map[string]any{"file": "entry"}); strings.Contains(out, "may be stale") {
		t.Fatalf("memory_read after confirm:\n%s", out)
	}
	// undo takes a confirmation back, as any memoryd commit.
	if out, errOut, code := w.runIn(app, "", nil, "undo"); code != 0 {
		t.Fatalf("undo of the confirmation: %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := w.runIn(app, "", nil, "show", "entry"); !strings.Contains(out, "may be stale: src/app.go changed") {
		t.Fatalf("after undo of the confirmation:\n%s", out)
	}
	if out, errOut, code := w.runIn(app, "", nil, "check", "--confirm", "project-entry.md"); code != 0 {
		t.Fatalf("check --confirm FILE: %d\n%s%s", code, out, errOut)
	}
	// A deleted file cannot be confirmed: the cite must go.
	if out, errOut, code := w.runIn(app, "", nil, "check", "--confirm", "ship"); code == 0 || !strings.Contains(errOut, "no such file") {
		t.Fatalf("confirm of a fact whose file is gone: %d\n%s%s", code, out, errOut)
	}

	// An edit confirms too.
	w.write("app.go", "package main\n\nfunc main() { loadEnv(); serve() }\n", filepath.Join(app, "src"))
	if out, _, _ := w.runIn(app, "", nil, "show", "entry"); !strings.Contains(out, "may be stale") {
		t.Fatalf("an uncommitted change is a change:\n%s", out)
	}
	if out, errOut, code := w.runIn(app, "", []string{"EDITOR=sed -i -e 's/calls readConfig/calls loadEnv/'"}, "edit", "entry"); code != 0 {
		t.Fatalf("edit: %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := w.runIn(app, "", nil, "show", "entry"); strings.Contains(out, "may be stale") {
		t.Fatalf("an edit did not record the file's version:\n%s", out)
	}
	// A replace restates the fact: the files still there get their
	// version now, a cite of a gone file stays as it was.
	w.write("app.go", "package main\n\nfunc main() { loadEnv(); serve(); wait() }\n", filepath.Join(app, "src"))
	if out, code := add("entry", "The app starts in main, which loads the environment", "main in src/app.go calls loadEnv, then serves.", "--replace"); code != 0 {
		t.Fatalf("add --replace: %d\n%s", code, out)
	}
	if out, _, _ := w.runIn(app, "", nil, "show", "entry"); strings.Contains(out, "may be stale") || !strings.Contains(out, "src/app.go@") {
		t.Fatalf("a replace did not record the file's version, or dropped the cite:\n%s", out)
	}
	if out, code := add("ship", "Shipping runs make ship", "ship.sh ran make ship; it is gone now.", "--replace"); code != 0 {
		t.Fatalf("add --replace: %d\n%s", code, out)
	}
	if out, _, _ := w.runIn(app, "", nil, "show", "ship"); !strings.Contains(out, "may be stale: ship.sh deleted or moved") {
		t.Fatalf("a replace hid a gone file:\n%s", out)
	}

	// Never deleted or rewritten for being stale.
	if _, err := os.Stat(filepath.Join(w.mem, "project-ship.md")); err != nil {
		t.Fatal(err)
	}
}

// TestCitesRecallMarks: per-prompt recall gives a fact that the index
// left out with the mark when the file it cites changed, and without it
// when it did not.
func TestCitesRecallMarks(t *testing.T) {
	w := newWorld(t)
	app := citeProject(t, w)
	w.writeConfig("index:\n  max_lines: 12\n")
	blob := w.git(app, "rev-parse", "HEAD:src/app.go")
	w.write("reference-vault.md", "---\nname: vault\ndescription: The staging deploy key lives in the team vault\nmetadata:\n  type: reference\n  project: app\n  updated: 2020-01-01\n  cites:\n    - src/app.go@"+blob+"\n---\nThe deploy key for staging is in the vault; src/app.go reads it.\n")
	for i := 1; i <= 9; i++ {
		w.write("reference-docs-"+string(rune('0'+i))+".md", "---\nname: docs-"+string(rune('0'+i))+"\ndescription: Design notes, part "+string(rune('0'+i))+"\nmetadata:\n  type: reference\n  project: app\n  updated: 2026-01-0"+string(rune('0'+i))+"\n---\nSee the wiki.\n")
	}
	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		t.Fatalf("rebuild: %s", out)
	}
	if ctx, _, _ := w.runIn(app, "", nil, "context"); strings.Contains(ctx, "reference-vault.md") {
		t.Fatalf("the index should leave the vault fact out:\n%s", ctx)
	}
	recall := func(session string) string {
		t.Helper()
		payload, _ := json.Marshal(map[string]any{"session_id": session, "cwd": app, "prompt": "Where is the deploy key for staging?"})
		out, errOut, code := w.runIn(app, string(payload), nil, "recall", "--format", "text")
		if code != 0 || !strings.Contains(out, "reference-vault.md") {
			t.Fatalf("recall: %d\n%s%s", code, out, errOut)
		}
		return out
	}
	if out := recall("s1"); strings.Contains(out, "may be stale") {
		t.Fatalf("recall marks a fact whose file did not change:\n%s", out)
	}
	w.write("app.go", "package main\n\nfunc main() { readKeyFromEnv() }\n", filepath.Join(app, "src"))
	w.git(app, "commit", "-qam", "key from the environment")
	if out := recall("s2"); !strings.Contains(out, "(reference-vault.md) — The staging deploy key lives in the team vault (may be stale: src/app.go changed since 2020-01-01)") {
		t.Fatalf("recall does not mark the stale fact:\n%s", out)
	}
}
