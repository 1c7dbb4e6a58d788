package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

// fact is a memory file a test writes.
type fact struct {
	typ, name, description, project, body string
}

func (f fact) file() string { return f.typ + "-" + f.name + ".md" }

func (f fact) content() string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nmetadata:\n  type: %s\n", f.name, f.description, f.typ)
	if f.project != "" {
		fmt.Fprintf(&b, "  project: %s\n", f.project)
	}
	fmt.Fprintf(&b, "---\n%s\n", f.body)
	return b.String()
}

// folder is a memory folder and a state folder for one test.
type folder struct {
	t                   testing.TB
	memoryDir, stateDir string
}

func newFolder(t testing.TB, facts ...fact) *folder {
	t.Helper()
	root := t.TempDir()
	f := &folder{t: t, memoryDir: filepath.Join(root, "memory"), stateDir: filepath.Join(root, "state")}
	if err := os.Mkdir(f.memoryDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, fa := range facts {
		f.write(fa)
	}
	return f
}

func (f *folder) write(fa fact) string {
	f.t.Helper()
	f.writeFile(fa.file(), fa.content())
	return fa.file()
}

func (f *folder) writeFile(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.memoryDir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *folder) remove(rel string) {
	f.t.Helper()
	if err := os.Remove(filepath.Join(f.memoryDir, filepath.FromSlash(rel))); err != nil {
		f.t.Fatal(err)
	}
}

func (f *folder) dbPath() string { return filepath.Join(f.stateDir, "search.db") }

// open opens the folder's index, closed when the test ends.
func (f *folder) open() *Index {
	f.t.Helper()
	x, err := Open(f.stateDir, f.memoryDir)
	if err != nil {
		f.t.Fatalf("Open: %v", err)
	}
	f.t.Cleanup(func() { x.Close() })
	return x
}

// snapshot scans the folder as the daemon's index.Store would.
func (f *folder) snapshot() index.Snapshot {
	f.t.Helper()
	s := index.NewStore(f.memoryDir)
	if err := s.Scan(); err != nil {
		f.t.Fatal(err)
	}
	return s.Snapshot()
}

// files returns the files of hits, in order.
func files(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.File
	}
	return out
}

// find searches and returns the files found, failing the test on an error.
func find(t testing.TB, x *Index, q Query) []string {
	t.Helper()
	hits, err := x.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return files(hits)
}

func wantFiles(t testing.TB, q Query, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("Search(%q, project %q, all %v, type %q) = %q, want %q", q.Words, q.Project, q.All, q.Type, got, want)
	}
}
