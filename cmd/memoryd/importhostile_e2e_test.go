package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportClaudeHostileFolder: `memoryd import claude` does not follow
// links out of Claude Code's folder (a memory folder, a fact file), takes
// escape sequences and control characters out of what it imports, and
// does not read a file far larger than a fact; each file left out is named
// with the reason.
func TestImportClaudeHostileFolder(t *testing.T) {
	w := newWorld(t)
	projects := filepath.Join(w.home, ".claude", "projects")
	outside := filepath.Join(w.home, "secret-stuff")
	os.MkdirAll(outside, 0o755)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "user_ssh.md"), []byte(claudeMemoryFile("ssh", "Outside fact", "user", "OUTSIDE-BODY from the linked folder.")), 0o644))
	must(os.WriteFile(filepath.Join(outside, "user_linked.md"), []byte(claudeMemoryFile("linked", "Linked fact", "user", "LINKED-BODY from a linked file.")), 0o644))

	a := filepath.Join(projects, "-home-ana-a", "memory")
	must(os.MkdirAll(a, 0o755))
	must(os.WriteFile(filepath.Join(a, "user_colour.md"), []byte(claudeMemoryFile("colour", "Likes \x1b[31mred\x1b[0m prompts\x07", "user",
		"Prefers a \x1b[1;31mred\x1b[0m prompt.\x1b]0;pwned\x07 Keeps it\x00 short.")), 0o644))
	must(os.Symlink(filepath.Join(outside, "user_linked.md"), filepath.Join(a, "user_linked.md")))
	big := filepath.Join(a, "user_big.md")
	must(os.WriteFile(big, []byte(claudeMemoryFile("big", "A huge fact", "user", "x")), 0o644))
	must(os.Truncate(big, 64<<20)) // sparse: 64 MiB on paper
	must(os.MkdirAll(filepath.Join(projects, "-home-ana-b"), 0o755))
	must(os.Symlink(outside, filepath.Join(projects, "-home-ana-b", "memory")))

	out, code := w.runCmd(nil, "import", "claude")
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"skip      ~/.claude/projects/-home-ana-b/memory: a link out of Claude Code's folder",
		"skip      ~/.claude/projects/-home-ana-a/memory/user_linked.md: a link out of Claude Code's folder",
		"skip      ~/.claude/projects/-home-ana-a/memory/user_big.md: 67108864 bytes, over the 262144 a fact file may have",
		"import    user-colour.md",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07\x00") {
		t.Errorf("control bytes in the output: %q", out)
	}
	if log := w.git(w.notes, "log", "-p", "--all"); strings.Contains(log, "OUTSIDE-BODY") || strings.Contains(log, "LINKED-BODY") {
		t.Error("a fact from outside Claude Code's folder was imported")
	}
	data, err := os.ReadFile(filepath.Join(w.mem, "user-colour.md"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); strings.ContainsAny(s, "\x1b\x07\x00") || strings.Contains(s, "[31m") || !strings.Contains(s, "Prefers a red prompt. Keeps it short.") {
		t.Errorf("user-colour.md:\n%q", s)
	}
}
