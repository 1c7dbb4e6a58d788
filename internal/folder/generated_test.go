package folder

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

// TestGeneratedBy is the one rule's cases: the reserved files whatever
// their content, a project index by its content (absent counts), and
// everything else never.
func TestGeneratedBy(t *testing.T) {
	snap := index.Snapshot{Memories: []*index.Memory{{File: "project-b.md", Name: "b", Type: "project", Description: "B", Project: "app"}}}
	app := index.BuildIndex(snap, "app", index.Budget{})
	has := func(b []byte) func() ([]byte, error) { return func() ([]byte, error) { return b, nil } }
	fails := func(err error) func() ([]byte, error) { return func() ([]byte, error) { return nil, err } }
	for _, c := range []struct {
		rel     string
		content func() ([]byte, error)
		want    bool
	}{
		{index.AttributesFile, has([]byte("anything")), true},
		{index.ProtocolFile, has([]byte("a person's protocol")), true},
		{index.IndexFile, has([]byte("edited by hand")), true},
		{"MEMORY.app.md", has(app), true},
		{"MEMORY.app.md", fails(fs.ErrNotExist), true}, // removed: a project without facts
		{"MEMORY.app.md", has([]byte("# my notes\n")), false},
		{"MEMORY.notes.md", has([]byte("# my notes\n")), false},
		{"MEMORY.app.md", fails(errors.New("a folder")), false},
		{"MEMORY.other.md", has(app), false}, // another project's head
		{"user-a.md", has(app), false},
		{"sub/MEMORY.app.md", has(app), false},
	} {
		if got := GeneratedBy(c.rel, c.content); got != c.want {
			t.Errorf("GeneratedBy(%q) = %v, want %v", c.rel, got, c.want)
		}
	}
}

// TestGeneratedOnDisk: Generated reads the file under its name in the
// folder, and an absent project index counts.
func TestGeneratedOnDisk(t *testing.T) {
	dir := t.TempDir()
	snap := index.Snapshot{Memories: []*index.Memory{{File: "project-b.md", Name: "b", Type: "project", Description: "B", Project: "app"}}}
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.app.md"), index.BuildIndex(snap, "app", index.Budget{}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.notes.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{"MEMORY.app.md": true, "MEMORY.gone.md": true, "MEMORY.notes.md": false, "user-a.md": false} {
		if got := Generated(dir, rel); got != want {
			t.Errorf("Generated(%q) = %v, want %v", rel, got, want)
		}
	}
}
