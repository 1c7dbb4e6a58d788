package cited

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

func TestBuildAndFacts(t *testing.T) {
	snap := index.Snapshot{Memories: []*index.Memory{
		{File: "project-migrate.md", Project: "app-a", Cites: []index.Cite{{Path: "./src/db/migrate.go", Blob: "x"}}},
		{File: "project-named.md", Project: "app-a", Body: "Never run it twice: see src/db/migrate.go and docs/setup.md."},
		{File: "user-global.md", Description: "The build lives in scripts/build.sh"},
		{File: "project-other.md", Project: "app-b", Cites: []index.Cite{{Path: "src/db/migrate.go"}}},
		{File: "project-old.md", Project: "app-a", Cites: []index.Cite{{Path: "src/db/migrate.go"}}, SupersededBy: "project-migrate.md"},
		{File: "_inbox/project-new.md", Project: "app-a", Cites: []index.Cite{{Path: "src/db/migrate.go"}}},
		{File: "project-escape.md", Project: "app-a", Cites: []index.Cite{{Path: "../outside.go"}}},
	}}
	m := Build(snap)
	for _, c := range []struct {
		slug, rel string
		want      []string
	}{
		{"app-a", "src/db/migrate.go", []string{"project-migrate.md", "project-named.md"}},
		{"app-a", "./src/db/migrate.go", []string{"project-migrate.md", "project-named.md"}},
		{"app-b", "src/db/migrate.go", []string{"project-other.md"}},
		{"app-a", "docs/setup.md", []string{"project-named.md"}},
		{"app-c", "scripts/build.sh", []string{"user-global.md"}},
		{"app-a", "src/db/other.go", nil},
		{"app-a", "../outside.go", nil},
	} {
		if got := m.Facts(c.slug, c.rel); !slices.Equal(got, c.want) {
			t.Errorf("Facts(%q, %q) = %v, want %v", c.slug, c.rel, got, c.want)
		}
	}
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read without a map: %v, want fs.ErrNotExist", err)
	}
	m := Map{Files: map[string][]string{key("app-a", "a.go"): {"project-a.md"}}}
	if err := Write(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil || !slices.Equal(got.Facts("app-a", "a.go"), []string{"project-a.md"}) {
		t.Fatalf("Read: %v, %v", got, err)
	}
}

// TestAbout: files named absolute or relative to the working directory
// find the facts about them in their project; a file outside the project
// or cited by nothing finds none.
func TestAbout(t *testing.T) {
	root := filepath.Join(t.TempDir(), "app-a")
	for _, d := range []string{".git", "src/db"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := Build(index.Snapshot{Memories: []*index.Memory{
		{File: "project-migrate.md", Project: "app-a", Cites: []index.Cite{{Path: "src/db/migrate.go"}}},
		{File: "user-global.md", Body: "Never edit src/db/migrate.go by hand."},
	}})
	rels, facts := m.About(filepath.Join(root, "src"), []string{"db/migrate.go", filepath.Join(root, "src/db/migrate.go"), "db/other.go", "../../elsewhere/x.go"})
	if !slices.Equal(rels, []string{"src/db/migrate.go"}) || !slices.Equal(facts, []string{"project-migrate.md", "user-global.md"}) {
		t.Errorf("About = %q %q", rels, facts)
	}
	if rels, facts := m.About(root, []string{"README.md"}); rels != nil || facts != nil {
		t.Errorf("an uncited file: %q %q", rels, facts)
	}
}
