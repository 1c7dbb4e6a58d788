package index

import (
	"errors"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	// Columns: ignored, reserved, memory. Tracked is !ignored.
	tests := []struct {
		rel                       string
		ignored, reserved, memory bool
	}{
		{"feedback-tabs.md", false, false, true},
		{"sub/project-x.md", false, false, true},
		{"a/b/c.md", false, false, true},
		{"MEMORY.md", false, true, false},
		{"_CONFLICTS.md", false, true, false},
		{"PROTOCOL.md", false, true, false},
		{".gitattributes", false, true, false},
		{"sub/MEMORY.md", false, false, true},
		{"MEMORY.memoryd.md", false, true, false},
		{"MEMORY.Notes.md", false, true, false},
		{"MEMORY..md", false, true, false},
		{"MEMORY.a.b.md", false, true, false},
		{"MEMORYX.md", false, false, true},
		{"sub/MEMORY.memoryd.md", false, false, true},
		{"sub/.gitattributes", true, false, false},
		{"notes.txt", true, false, false},
		{"notes.MD", true, false, false},
		{"sub", true, false, false},
		{".hidden.md", true, false, false},
		{".git/x.md", true, false, false},
		{"sub/.obsidian/x.md", true, false, false},
		{"x.md~", true, false, false},
		{".#x.md", true, false, false},
		{".x.md.swp", true, false, false},
		{"x.md.swx", true, false, false},
		{"4913", true, false, false},
		{"x.md___jb_tmp___", true, false, false},
		{"x.md___jb_old___", true, false, false},
		{"x.md.tmp", true, false, false},
		{".memoryd-tmp-123", true, false, false},
		{".memoryd-tmp-123.md", true, false, false},
		{"", true, false, false},
		{"../x.md", true, false, false},
		{"./x.md", true, false, false},
		{"a//x.md", true, false, false},
	}
	for _, tt := range tests {
		if got := Ignored(tt.rel); got != tt.ignored {
			t.Errorf("Ignored(%q) = %v", tt.rel, got)
		}
		if got := Tracked(tt.rel); got != !tt.ignored {
			t.Errorf("Tracked(%q) = %v", tt.rel, got)
		}
		if got := Reserved(tt.rel); got != tt.reserved {
			t.Errorf("Reserved(%q) = %v", tt.rel, got)
		}
		if got := IsMemory(tt.rel); got != tt.memory {
			t.Errorf("IsMemory(%q) = %v", tt.rel, got)
		}
	}
}

func TestIgnoredDir(t *testing.T) {
	for rel, want := range map[string]bool{
		"": false, ".": false, "sub": false, "a/b": false,
		".git": true, "a/.cache": true, "a/../b": true, "a//b": true,
	} {
		if got := IgnoredDir(rel); got != want {
			t.Errorf("IgnoredDir(%q) = %v", rel, got)
		}
	}
}

func TestValidName(t *testing.T) {
	good := []string{"a", "prefers-tabs", "x1-2-y", strings.Repeat("a", 64)}
	bad := []string{"", "-a", "a-", "a--b", "A", "a_b", "a b", "é", "a.md", strings.Repeat("a", 65)}
	for _, n := range good {
		if !ValidName(n) {
			t.Errorf("ValidName(%q) = false", n)
		}
	}
	for _, n := range bad {
		if ValidName(n) {
			t.Errorf("ValidName(%q) = true", n)
		}
	}
}

func TestIsIndex(t *testing.T) {
	for rel, want := range map[string]string{
		"MEMORY.md": "", "MEMORY.memoryd.md": "memoryd", "MEMORY.my-app-2.md": "my-app-2",
		"MEMORY.Notes.md": "-", "MEMORY..md": "-", "MEMORY.a.b.md": "-", "MEMORY.a--b.md": "-",
		"sub/MEMORY.x.md": "-", "memory.x.md": "-", "MEMORY.x.md.tmp": "-",
	} {
		slug, ok := ProjectIndexSlug(rel)
		if ok != (want != "-" && want != "") || ok && slug != want {
			t.Errorf("ProjectIndexSlug(%q) = %q, %v", rel, slug, ok)
		}
		if got := IsIndex(rel); got != (want != "-") {
			t.Errorf("IsIndex(%q) = %v", rel, got)
		}
		if want != "-" && want != "" && ProjectIndexFile(want) != rel {
			t.Errorf("ProjectIndexFile(%q) = %q", want, ProjectIndexFile(want))
		}
	}
}

// A name with a control character is a memory file (so that it can be
// listed as unreadable) that is never committed.
func TestControlCharacterNames(t *testing.T) {
	for _, rel := range []string{"tab\there.md", "nl\nx.md", "esc\x1b[0m.md", "del\x7f.md", "sub\x01/x.md", "\x00.md"} {
		if Tracked(rel) {
			t.Errorf("Tracked(%q) = true", rel)
		}
		if !IsMemory(rel) {
			t.Errorf("IsMemory(%q) = false", rel)
		}
		err := NameError(rel)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != rel || !strings.Contains(err.Error(), "file name contains a control character; rename it") {
			t.Errorf("NameError(%q) = %v", rel, err)
		}
	}
	for _, rel := range []string{"feedback-tabs.md", "é-ü.md", "MEMORY.md", "a b.md"} {
		if err := NameError(rel); err != nil {
			t.Errorf("NameError(%q) = %v", rel, err)
		}
		if !Tracked(rel) {
			t.Errorf("Tracked(%q) = false", rel)
		}
	}
}
