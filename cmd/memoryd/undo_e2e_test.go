package main

import (
	"strings"
	"testing"
)

// TestUndoExtraction: `memoryd undo` with no commit takes back the newest
// memoryd commit, here an extraction: its file goes, MEMORY.md follows,
// the earlier extraction stays.
func TestUndoExtraction(t *testing.T) {
	w := newCostWorld(t)
	w.turn("Remember that I prefer tabs in Go files.", "Noted: tabs in Go.")
	if out, code := w.runCmd(nil, "extract"); code != 0 {
		t.Fatalf("extract: exit %d\n%s", code, out)
	}
	w.turn("Don't forget: I use pnpm, never npm.", "pnpm it is.")
	if out, code := w.runCmd(nil, "extract"); code != 0 || !w.exists("user-fact-2.md") {
		t.Fatalf("second extract: exit %d\n%s", code, out)
	}
	second := w.head()
	out, code := w.runCmd(nil, "undo")
	if code != 0 || !strings.Contains(out, "undid "+second[:12]+" (memory: extract from claude session ") || !strings.Contains(out, "  removed user-fact-2.md\n") {
		t.Fatalf("undo: exit %d\n%s", code, out)
	}
	if w.exists("user-fact-2.md") || !w.exists("user-fact-1.md") {
		t.Errorf("files after undo: %v", w.memFiles())
	}
	if idx := w.show("memory/MEMORY.md"); strings.Contains(idx, "user-fact-2.md") || !strings.Contains(idx, "user-fact-1.md") {
		t.Errorf("committed MEMORY.md:\n%s", idx)
	}
	if s := w.subjects()[0]; !strings.HasPrefix(s, "memory: undo "+second[:12]+" (extract from claude session ") {
		t.Errorf("subject %q", s)
	}
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("left uncommitted:\n%s", st)
	}
	// The next undo takes back the first extraction.
	if out, code := w.runCmd(nil, "undo"); code != 0 || w.exists("user-fact-1.md") {
		t.Errorf("second undo: exit %d\n%s", code, out)
	}
	if out, code := w.runCmd(nil, "undo"); code != 0 || !strings.Contains(out, "nothing to undo: everything memoryd did is undone already") {
		t.Errorf("third undo: exit %d\n%s", code, out)
	}
	w.fsck()
}

// TestUndoAddAndForget: an add is taken back (the file goes) and a forget
// too (the file comes back, byte for byte).
func TestUndoAddAndForget(t *testing.T) {
	w := newWorld(t)
	if out, code := w.runCmd(nil, "add", "--type", "user", "--name", "shell", "--description", "Uses zsh", "Uses zsh on every machine."); code != 0 {
		t.Fatalf("add: exit %d\n%s", code, out)
	}
	shell := w.memFiles()["user-shell.md"]
	if out, code := w.runCmd(nil, "add", "--type", "feedback", "--name", "tabs", "--description", "Prefers tabs", "Use tabs."); code != 0 {
		t.Fatalf("add: exit %d\n%s", code, out)
	}
	add := w.head()
	if out, code := w.runCmd(nil, "forget", "shell", "--reason", "switched to fish"); code != 0 || w.exists("user-shell.md") {
		t.Fatalf("forget: exit %d\n%s", code, out)
	}

	out, code := w.runCmd(nil, "undo")
	if code != 0 || !strings.Contains(out, "(memory: forget user-shell.md (cli))") || !strings.Contains(out, "  brought back user-shell.md\n") {
		t.Fatalf("undo forget: exit %d\n%s", code, out)
	}
	if got := w.memFiles()["user-shell.md"]; got != shell {
		t.Errorf("the forgotten file came back as:\n%s\nwant:\n%s", got, shell)
	}
	if !strings.Contains(w.show("memory/MEMORY.md"), "user-shell.md") {
		t.Error("the committed MEMORY.md does not list the fact that came back")
	}
	out, code = w.runCmd(nil, "undo", add[:8])
	if code != 0 || w.exists("feedback-tabs.md") || !w.exists("user-shell.md") || !strings.Contains(out, "  removed feedback-tabs.md\n") {
		t.Fatalf("undo add: exit %d\n%s", code, out)
	}
	if s := w.subjects(); s[0] != "memory: undo "+add[:12]+" (add feedback-tabs.md (cli))" || !strings.HasPrefix(s[1], "memory: undo ") {
		t.Errorf("subjects %q", s[:3])
	}
	w.fsck()
}

// TestUndoRefusesLaterChangeThenForce: a later edit of the same file stops
// undo, naming the file and the commit; --force undoes anyway.
func TestUndoRefusesLaterChangeThenForce(t *testing.T) {
	w := newWorld(t)
	if out, code := w.runCmd(nil, "add", "--type", "user", "--name", "editor", "--description", "Uses vim", "Uses vim."); code != 0 {
		t.Fatalf("add: exit %d\n%s", code, out)
	}
	add := w.head()
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Uses vim, with a few plugins."))
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "my own edit")
	edit := w.head()

	out, code := w.runCmd(nil, "undo", add[:8])
	if code != 1 || !strings.Contains(out, "not undoing "+add[:12]+" (memory: add user-editor.md (cli)): later changes touched the same files:") ||
		!strings.Contains(out, "  user-editor.md: changed since by "+edit[:12]+" my own edit") || !strings.Contains(out, "memoryd undo --force "+add[:12]) {
		t.Fatalf("undo over a later edit: exit %d\n%s", code, out)
	}
	if w.head() != edit || !w.exists("user-editor.md") {
		t.Fatal("a refused undo changed something")
	}
	out, code = w.runCmd(nil, "undo", "--force", add[:8])
	if code != 0 || w.exists("user-editor.md") || !strings.Contains(out, "replaced a later change (--force): user-editor.md, changed since by "+edit[:12]) {
		t.Fatalf("undo --force: exit %d\n%s", code, out)
	}
	// The edit is in history still.
	if got := w.git(w.notes, "show", edit+":memory/user-editor.md"); !strings.Contains(got, "a few plugins") {
		t.Errorf("history lost the edit: %q", got)
	}
	w.fsck()
}

// TestHistoryMarksUndoable: history gives each commit's kind and marks
// what undo can take back (u) and what it took back already (-).
func TestHistoryMarksUndoable(t *testing.T) {
	w := newWorld(t)
	w.write("user-mine.md", memoryFile("user", "mine", "Mine", "Written and committed by hand."))
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "my notes")
	for _, name := range []string{"a", "b"} {
		if out, code := w.runCmd(nil, "add", "--type", "user", "--name", name, "--description", "Fact "+name, "The fact "+name+"."); code != 0 {
			t.Fatalf("add: exit %d\n%s", code, out)
		}
	}
	if out, code := w.runCmd(nil, "undo"); code != 0 {
		t.Fatalf("undo: exit %d\n%s", code, out)
	}
	hist, _, code := w.runCmd2(nil, "history")
	if code != 0 {
		t.Fatalf("history: exit %d\n%s", code, hist)
	}
	lines := strings.Split(strings.TrimSpace(hist), "\n")
	want := []struct{ mark, kind, subject string }{
		{"u ", "undo", "memory: undo "},
		{"- ", "add", "memory: add user-b.md (cli)"},
		{"u ", "add", "memory: add user-a.md (cli)"},
		{"  ", "", "my notes"},
	}
	if len(lines) != len(want)+1 || !strings.HasPrefix(lines[len(lines)-1], "(u: 'memoryd undo HASH' takes it back") {
		t.Fatalf("history:\n%s", hist)
	}
	for i, wnt := range want {
		f := lines[i]
		if !strings.HasPrefix(f, wnt.mark+" ") || strings.TrimSpace(f[32:44]) != wnt.kind || !strings.HasPrefix(f[46:], wnt.subject) {
			t.Errorf("line %d %q, want mark %q kind %q subject %q", i, f, wnt.mark, wnt.kind, wnt.subject)
		}
	}
}
