package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/install"
)

// TestDaemonRefreshesCodexBlock: with Codex wired (the marked block in
// $CODEX_HOME/AGENTS.md), every rebuild that changes MEMORY.md is copied
// into the block; the user's own text around it stays.
func TestDaemonRefreshesCodexBlock(t *testing.T) {
	w := newWorld(t)
	codex := filepath.Join(w.home, ".codex")
	os.MkdirAll(codex, 0o755)
	agents := filepath.Join(codex, "AGENTS.md")
	os.WriteFile(agents, install.AddCodexIndex([]byte("# My rules\nBe brief.\n"), []byte("# Memory\n")), 0o644)
	p := w.startDaemon()
	defer p.stop(t)
	w.write("user-editor.md", memoryFile("user", "editor", "Uses helix", "Uses helix everywhere."))
	waitFor(t, "the fact in Codex's AGENTS.md", func() bool {
		b, _ := os.ReadFile(agents)
		return strings.Contains(string(b), "user-editor.md") && strings.HasPrefix(string(b), "# My rules\nBe brief.\n")
	})
}
