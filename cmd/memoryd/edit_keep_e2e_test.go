package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/state"
)

// shellEditor writes a script that stands in for the user's editor: its
// n-th run (from 0) runs steps[n] as shell code, with $1 the file to edit
// and $d a folder of the test's (where a step leaves what it saw); a run
// past the steps leaves the file alone. It returns the script and $d.
func shellEditor(t *testing.T, steps ...string) (editor, dir string) {
	t.Helper()
	dir = t.TempDir()
	var b strings.Builder
	b.WriteString("#!/bin/sh\nd='" + dir + "'\nn=$(cat \"$d/n\" 2>/dev/null || echo 0)\necho $((n+1)) > \"$d/n\"\ncase $n in\n")
	for i, s := range steps {
		b.WriteString(itoa(i) + ")\n" + s + "\n;;\n")
	}
	b.WriteString("esac\n")
	editor = filepath.Join(dir, "editor")
	if err := os.WriteFile(editor, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return editor, dir
}

// editNotes are the lines memoryd puts at the top of a reopened copy.
func editNotes(s string) string {
	var notes []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "# memoryd:") {
			break
		}
		notes = append(notes, l)
	}
	return strings.Join(notes, "")
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// keptCopy is the path of the copy the output says holds the person's text.
func keptCopy(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`your text is kept in (\S+\.md)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the output names no kept copy:\n%s", out)
	}
	return m[1]
}

// TestEditKeepConcurrentChange: the fact changes while the editor is open.
// The save does not lose what was typed: the editor reopens with the other
// version at the top, and the save after the merge is made against that
// version; a person who quits then keeps their text in a copy.
func TestEditKeepConcurrentChange(t *testing.T) {
	w := newWorld(t)
	w.runCmd(nil, "add", "--type", "user", "--name", "shell", "--description", "Uses zsh", "Uses zsh everywhere.")
	fact := filepath.Join(w.mem, "user-shell.md")
	// Another writer replaces the fact while the person types.
	other := "'" + binPath + "' add --replace --type user --name shell --description 'Uses zsh' 'Uses zsh on every machine.' >/dev/null"

	ed, dir := shellEditor(t,
		`sed -i 's/zsh everywhere/fish everywhere/' "$1"; `+other,
		`cp "$1" "$d/seen"; sed -i 's/fish everywhere/fish on every machine/' "$1"`)
	out, code := w.runCmd([]string{"EDITOR=" + ed}, "edit", "shell")
	got := readString(t, fact)
	if code != 0 || !strings.Contains(got, "Uses fish on every machine.") || w.subjects()[0] != "memory: edit user-shell.md (cli)" {
		t.Fatalf("edit over a concurrent change: exit %d\n%s\nfact:\n%s", code, out, got)
	}
	if strings.Contains(got, "memoryd:") || !strings.HasPrefix(got, "---\n") {
		t.Fatalf("memoryd's notes were saved into the fact:\n%s", got)
	}
	if !strings.Contains(out, "changed since it was read") {
		t.Errorf("the problem is not on the terminal:\n%s", out)
	}
	notes := editNotes(readString(t, filepath.Join(dir, "seen")))
	if !strings.Contains(notes, "changed since it was read") || !strings.Contains(notes, "Uses zsh on every machine.") {
		t.Fatalf("the reopened copy does not show the problem and the other version at its top:\n%s", notes)
	}

	// The same, but the person quits without a change: the text is kept.
	other = "'" + binPath + "' add --replace --type user --name shell --description 'Uses zsh' 'Uses bash now.' >/dev/null"
	ed, _ = shellEditor(t, `sed -i 's/^Uses .*/Uses fish on the moon./' "$1"; `+other, `:`)
	out, code = w.runCmd([]string{"EDITOR=" + ed}, "edit", "shell")
	if code == 0 {
		t.Fatalf("giving up after a failed save exits 0:\n%s", out)
	}
	kept := readString(t, keptCopy(t, out))
	if !strings.Contains(kept, "Uses fish on the moon.") {
		t.Fatalf("the kept copy lost the typed text:\n%s", kept)
	}
	if got := readString(t, fact); strings.Contains(got, "moon") || !strings.Contains(got, "Uses bash now.") {
		t.Fatalf("after giving up the fact is:\n%s", got)
	}
}

// TestEditKeepBusy: the write lock is held past the wait when the person
// saves. The editor reopens with the problem at the top; once the lock is
// free, saving again commits what was typed.
func TestEditKeepBusy(t *testing.T) {
	w := newWorld(t)
	w.runCmd(nil, "add", "--type", "user", "--name", "shell", "--description", "Uses zsh", "Uses zsh everywhere.")
	lock, err := state.TryLock(w.stateDir(), state.WriteLock, state.Owner("the test"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if lock != nil {
			lock.Unlock()
		}
	}()
	ed, dir := shellEditor(t,
		`sed -i 's/zsh everywhere/fish everywhere/' "$1"`,
		// Reopened: wait (at most 60 s) for the test to free the lock, then
		// delete memoryd's notes and save.
		`cp "$1" "$d/seen.tmp" && mv "$d/seen.tmp" "$d/seen"
i=0; while [ ! -e "$d/go" ]; do i=$((i+1)); [ $i -gt 1200 ] && exit 1; sleep 0.05; done
sed -i '/^# memoryd:/d' "$1"`)
	p := w.start([]string{"EDITOR=" + ed}, "edit", "shell")
	seen := filepath.Join(dir, "seen")
	exited := func() bool {
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	}
	// The writer waits 10 s for the lock before it gives up.
	waitFor(t, "the editor to reopen", func() bool {
		_, err := os.Stat(seen)
		return err == nil || exited()
	})
	if _, err := os.Stat(seen); err != nil {
		t.Fatalf("memoryd exited (%v) instead of reopening the editor:\n%s", p.err, p.output())
	}
	if notes := editNotes(readString(t, seen)); !strings.Contains(notes, "busy") || !strings.Contains(notes, "the test") {
		t.Fatalf("the reopened copy does not say the folder is busy:\n%s", readString(t, seen))
	}
	lock.Unlock()
	lock = nil
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(patience):
		t.Fatalf("memoryd edit did not finish:\n%s", p.output())
	}
	got := readString(t, filepath.Join(w.mem, "user-shell.md"))
	if p.err != nil || !strings.Contains(got, "Uses fish everywhere.") || strings.Contains(got, "memoryd:") {
		t.Fatalf("edit after busy: %v\n%s\nfact:\n%s", p.err, p.output(), got)
	}
	if !strings.Contains(p.output(), "busy") || w.subjects()[0] != "memory: edit user-shell.md (cli)" {
		t.Fatalf("edit after busy:\n%s\n%v", p.output(), w.subjects()[:1])
	}
}

// TestEditNoStateFolder: edit works on a machine where memoryd never ran,
// so its state folder does not exist yet.
func TestEditNoStateFolder(t *testing.T) {
	w := newWorld(t)
	w.write("user-shell.md", memoryFile("user", "shell", "Uses zsh", "Uses zsh everywhere."))
	w.git(w.notes, "add", "memory")
	w.git(w.notes, "commit", "-q", "-m", "a fact by hand")
	if _, err := os.Stat(w.stateDir()); !os.IsNotExist(err) {
		t.Fatalf("the state folder is there before the test: %v", err)
	}
	ed := editorScript(t, `s/zsh everywhere/fish everywhere/`)
	out, code := w.runCmd([]string{"EDITOR=" + ed}, "edit", "shell")
	got := readString(t, filepath.Join(w.mem, "user-shell.md"))
	if code != 0 || !strings.Contains(got, "Uses fish everywhere.") || w.subjects()[0] != "memory: edit user-shell.md (cli)" {
		t.Fatalf("edit without a state folder: exit %d\n%s\nfact:\n%s", code, out, got)
	}
}

// TestEditKeepWithVim: with the real vim, a save that does not parse
// reopens the copy with the problem written at its top, where the person
// sees it; the notes are dropped exactly when the fixed copy is saved.
func TestEditKeepWithVim(t *testing.T) {
	needtool.Path(t, "vim")
	w := newWorld(t)
	w.runCmd(nil, "add", "--type", "user", "--name", "shell", "--description", "Uses zsh", "Uses zsh everywhere.")
	fact := filepath.Join(w.mem, "user-shell.md")
	orig := readString(t, fact)
	vim := "vim -u NONE -i NONE -N -es"
	ed, dir := shellEditor(t,
		vim+` -c '%s/^description: .*/description: [unclosed/' -c wq "$1"`,
		// What vim shows is written aside; the person fixes the line and
		// saves, leaving memoryd's notes where they are.
		vim+` -c "w! $d/seen" -c '%s/^description: .*/description: Uses fish/' -c wq "$1"`)
	out, code := w.runCmd([]string{"EDITOR=" + ed}, "edit", "shell")
	notes := editNotes(readString(t, filepath.Join(dir, "seen")))
	if !strings.Contains(notes, "invalid YAML") {
		t.Fatalf("vim reopened the copy without the problem at its top: exit %d\n%s\nvim showed:\n%s", code, out, readString(t, filepath.Join(dir, "seen")))
	}
	got := readString(t, fact)
	want := strings.Replace(orig, "description: Uses zsh", "description: Uses fish", 1)
	if code != 0 || got != want {
		t.Fatalf("edit with vim: exit %d\n%s\nfact:\n%s\nwant:\n%s", code, out, got, want)
	}
	if !strings.Contains(out, "invalid YAML") {
		t.Errorf("the problem is not on the terminal:\n%s", out)
	}
}
