package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTeamInstallOffersLoadLine: `memoryd install` run in a repository
// with team memory prints the line a teammate without memoryd adds to
// AGENTS.md or CLAUDE.md, edits neither, and says nothing of it once the
// line is there or outside such a repository.
func TestTeamInstallOffersLoadLine(t *testing.T) {
	w := newWorld(t)
	shop := filepath.Join(w.home, "src", "shop")
	if err := os.MkdirAll(filepath.Join(shop, ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.git(shop, "init", "-q")
	w.write("project-tests-need-make.md", memoryFile("project", "tests-need-make", "Run the tests with make test-all", "Needs the database."), filepath.Join(shop, ".memory"))
	w.write("AGENTS.md", "# Rules\n", shop)
	install := func(dir string) string {
		out, errOut, code := w.runIn(dir, "", nil, "install", "--memory-dir", w.mem, "--no-service")
		if code != 0 {
			t.Fatalf("install in %s: %d\n%s%s", dir, code, out, errOut)
		}
		return out
	}
	if out := install(shop); !strings.Contains(out, "add this line to AGENTS.md or CLAUDE.md") || !strings.Contains(out, "\n    @.memory/MEMORY.md\n") {
		t.Fatalf("install in a repository with .memory/ does not offer the line:\n%s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(shop, "AGENTS.md")); string(data) != "# Rules\n" {
		t.Fatalf("install edited the team's AGENTS.md: %q", data)
	}
	if _, err := os.Stat(filepath.Join(shop, "CLAUDE.md")); err == nil {
		t.Fatal("install wrote a CLAUDE.md into the project")
	}
	w.write("AGENTS.md", "# Rules\n\n@.memory/MEMORY.md\n", shop)
	if out := install(shop); strings.Contains(out, "@.memory/MEMORY.md") {
		t.Fatalf("install offers the line AGENTS.md already has:\n%s", out)
	}
	if out := install(w.home); strings.Contains(out, "@.memory/MEMORY.md") {
		t.Fatalf("install offers the line outside a repository with team memory:\n%s", out)
	}
}
