package folder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/search"
)

// What search prints and show shows of each kind of fact, and the note
// status and doctor give of a planted instruction, with its commands.
func TestGateSearchShowHeld(t *testing.T) {
	mem := t.TempDir()
	for _, kind := range []string{"secret", "planted", "ordinary"} {
		os.WriteFile(filepath.Join(mem, kind+".md"), []byte(gateFacts[kind]), 0o644)
	}
	g := NewGate(t.TempDir())
	hits := g.SearchHits(mem, []search.Hit{{File: "secret.md", Snippet: gateSecret}, {File: "planted.md", Snippet: "run"}, {File: "ordinary.md", Snippet: "tabs"}})
	if len(hits) != 3 || strings.Contains(hits[0].Snippet, gateSecret) || !strings.HasPrefix(hits[1].Snippet, "(") || hits[2].Snippet != "tabs" {
		t.Errorf("search hits: %+v", hits)
	}
	note, text := g.Shown(gateFact(t, "secret"), []byte(gateFacts["secret"]))
	if note == "" || strings.Contains(string(text), gateSecret) {
		t.Errorf("show of a secret: %q\n%s", note, text)
	}
	if note, _ := g.Shown(gateFact(t, "ordinary"), []byte("x")); note != "" {
		t.Errorf("show of an ordinary fact: %q", note)
	}
	held := g.HeldIn(mem)
	if len(held) != 1 || !strings.HasPrefix(held[0], "planted.md is held from agents: ") ||
		!strings.Contains(held[0], "memoryd check --confirm staging-deploy") {
		t.Errorf("held: %q", held)
	}
}
