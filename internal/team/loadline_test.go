package team

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/memtest"
)

// TestLoadAdvice: the line is offered in a project with team memory until
// AGENTS.md or CLAUDE.md holds it, and never outside one.
func TestLoadAdvice(t *testing.T) {
	f := newProject(t, map[string]string{"project-a.md": memtest.Fact("project", "a", "A rule", "Body.")})
	sub := filepath.Join(f.Root, "cmd")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := LoadAdvice(sub); !strings.Contains(got, "\n    @.memory/MEMORY.md\n") || !strings.Contains(got, "(shop)") {
		t.Fatalf("LoadAdvice in a project with .memory/: %q", got)
	}
	write(t, filepath.Join(f.Root, "CLAUDE.md"), "# Rules\n\nSee @.memory/MEMORY.md for the team's memory.\n")
	if got := LoadAdvice(f.Root); got != "" {
		t.Fatalf("LoadAdvice with the line in CLAUDE.md: %q", got)
	}
	if data, _ := os.ReadFile(filepath.Join(f.Root, "CLAUDE.md")); !strings.HasPrefix(string(data), "# Rules\n") {
		t.Fatalf("CLAUDE.md changed: %q", data)
	}
	if got := LoadAdvice(t.TempDir()); got != "" {
		t.Fatalf("LoadAdvice outside a repository: %q", got)
	}
}
