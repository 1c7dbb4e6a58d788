package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
)

// TestAddShowForget: the memory commands on the built binary, with their
// refusals, each change in a commit of its own.
func TestAddShowForget(t *testing.T) {
	w := newWorld(t)
	out, code := w.runCmd(nil, "add", "--type", "feedback", "--name", "prefers-tabs",
		"--description", "Prefers tabs over spaces", "Use tabs for indentation.")
	if code != 0 || !strings.Contains(out, "created "+filepath.Join(w.mem, "feedback-prefers-tabs.md")) {
		t.Fatalf("add: %d\n%s", code, out)
	}
	if s := w.subjects()[0]; s != "memory: add feedback-prefers-tabs.md (cli)" {
		t.Fatalf("subject %q", s)
	}
	if !strings.Contains(w.show("memory/MEMORY.md"), "feedback-prefers-tabs.md") {
		t.Fatal("the committed MEMORY.md does not list the fact")
	}
	out, code = w.runCmd(nil, "show", "prefers-tabs")
	if code != 0 || !strings.Contains(out, "description: Prefers tabs over spaces") || !strings.Contains(out, "Use tabs") {
		t.Fatalf("show: %d\n%s", code, out)
	}
	head := w.head()
	refusals := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"add", "--type", "note", "--name", "x", "--description", "d", "body"}, `--type "note" is not one of user, feedback, project, reference`, 2},
		{[]string{"add", "--type", "user", "--name", "Bad Name", "--description", "d", "body"}, "lower-case words joined by hyphens", 1},
		{[]string{"add", "--type", "reference", "--name", "deploy", "--description", "Deploy", "push with ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue"}, "holds a secret (GitHub token on line 3)", 1},
		{[]string{"add", "--type", "feedback", "--name", "prefers-tabs", "--description", "Tabs", "Tabs again."}, "already exists; replace it explicitly", 1},
		{[]string{"add", "--type", "user", "--name", "indent", "--description", "Indent", "use tabs for indentation"}, "duplicates another fact feedback-prefers-tabs.md", 1},
		{[]string{"add", "--type", "user", "--name", "x", "--description", "d"}, "give the body as an argument", 2},
		{[]string{"forget", "prefers-tabs"}, "say why it is forgotten: --reason WHY", 2},
		{[]string{"forget", "nothing-here", "--reason", "x"}, `no such fact "nothing-here"`, 1},
		{[]string{"show", "nothing-here"}, `no such fact "nothing-here"`, 1},
	}
	for _, r := range refusals {
		out, code := w.runCmd(nil, r.args...)
		if code != r.code || !strings.Contains(out, r.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", r.args, code, r.code, r.want, out)
		}
	}
	if w.head() != head {
		t.Fatal("a refused command committed")
	}
	w.write("user-shell.md", "---\nname: shell\ndescription: Shell\nmetadata:\n  type: user\n  readonly: true\n---\nUses zsh.\n")
	if out, code := w.runCmd(nil, "forget", "user-shell.md", "--reason", "old"); code != 1 || !strings.Contains(out, "is readonly") {
		t.Errorf("forget readonly: %d\n%s", code, out)
	}
	out, code = w.runCmd(nil, "forget", "prefers-tabs", "--reason", "now uses spaces")
	if code != 0 || w.subjects()[0] != "memory: forget feedback-prefers-tabs.md (cli)" {
		t.Fatalf("forget: %d\n%s\n%v", code, out, w.subjects()[:2])
	}
	if _, err := os.Stat(filepath.Join(w.mem, "feedback-prefers-tabs.md")); err == nil {
		t.Fatal("still there")
	}
	// A body from stdin.
	if out, code := w.runCmdIn("Uses fish now.\nWhy: faster completions.\n", nil, "add", "--type", "user", "--name", "fish", "--description", "Uses fish", "-"); code != 0 {
		t.Fatalf("add from stdin: %d\n%s", code, out)
	}
}

// editorScript writes a shell script that stands in for the user's editor:
// each run applies the next of edits (sed expressions) to the file, or
// exits 1 for "fail".
func editorScript(t *testing.T, edits ...string) string {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("#!/bin/sh\nn=$(cat " + dir + "/n 2>/dev/null || echo 0)\necho $((n+1)) > " + dir + "/n\ncase $n in\n")
	for i, e := range edits {
		if e == "fail" {
			b.WriteString(itoa(i) + ") exit 1;;\n")
		} else {
			b.WriteString(itoa(i) + ") sed -i '" + e + "' \"$1\";;\n")
		}
	}
	b.WriteString("esac\n")
	p := filepath.Join(dir, "editor")
	os.WriteFile(p, []byte(b.String()), 0o755)
	return p
}

func itoa(i int) string { return string(rune('0' + i)) }

// TestEdit: an edit is committed; an editor that fails or a save with
// broken YAML never leaves a broken file behind — a broken save reopens
// the editor.
func TestEdit(t *testing.T) {
	w := newWorld(t)
	w.runCmd(nil, "add", "--type", "user", "--name", "shell", "--description", "Uses zsh", "Uses zsh everywhere.")
	orig, _ := os.ReadFile(filepath.Join(w.mem, "user-shell.md"))
	head := w.head()

	out, code := w.runCmd([]string{"EDITOR=" + editorScript(t, "fail")}, "edit", "shell")
	if code != 1 || !strings.Contains(out, "the editor") || w.head() != head {
		t.Fatalf("failing editor: %d\n%s", code, out)
	}
	// First save breaks the YAML; the editor opens again and the second save fixes it.
	ed := editorScript(t, `s/^description: .*/description: [unclosed/`, `s/^description: .*/description: Uses fish/; s/zsh/fish/`)
	out, code = w.runCmd([]string{"EDITOR=" + ed}, "edit", "user-shell.md")
	if code != 0 || !strings.Contains(out, "opening the editor again") || !strings.Contains(out, "edited ") {
		t.Fatalf("edit: %d\n%s", code, out)
	}
	got, _ := os.ReadFile(filepath.Join(w.mem, "user-shell.md"))
	if !strings.Contains(string(got), "description: Uses fish") || w.subjects()[0] != "memory: edit user-shell.md (cli)" {
		t.Fatalf("after edit:\n%s\n%v", got, w.subjects()[:1])
	}
	// A broken save, then giving up (saving it unchanged): the file is untouched.
	ed = editorScript(t, `s/^name: .*/name: [broken/`, ``)
	out, code = w.runCmd([]string{"EDITOR=" + ed}, "edit", "shell")
	after, _ := os.ReadFile(filepath.Join(w.mem, "user-shell.md"))
	if string(after) != string(got) || string(after) == string(orig) {
		t.Fatalf("gave up: %d\n%s\nfile:\n%s", code, out, after)
	}
}

// runCmdIn runs a memoryd command with stdin.
func (w *world) runCmdIn(stdin string, extra []string, args ...string) (string, int) {
	w.t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(append([]string{}, w.env...), extra...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return string(out), 0
}

// TestEditWithVim: memoryd edit with the real vim as the editor (in ex
// mode, as a script drives it).
func TestEditWithVim(t *testing.T) {
	needtool.Path(t, "vim")
	w := newWorld(t)
	w.runCmd(nil, "add", "--type", "user", "--name", "shell", "--description", "Uses zsh", "Uses zsh everywhere.")
	out, code := w.runCmd([]string{"EDITOR=vim -u NONE -i NONE -N -es -c '%s/zsh/fish/g' -c wq"}, "edit", "shell")
	got, _ := os.ReadFile(filepath.Join(w.mem, "user-shell.md"))
	if code != 0 || !strings.Contains(string(got), "Uses fish everywhere.") || w.subjects()[0] != "memory: edit user-shell.md (cli)" {
		t.Fatalf("edit with vim: %d\n%s\n%s", code, out, got)
	}
}
