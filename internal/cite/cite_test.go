package cite_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/project"
)

func TestMain(m *testing.M) { gittest.Main(m) }

// repo makes a git repository named app with a few files, and returns its
// root (symbolic links resolved, as project.Root gives it).
func repo(t *testing.T) string {
	t.Helper()
	needtool.Path(t, "git")
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "app")
	write(t, filepath.Join(root, "src", "app.go"), "package app\n")
	write(t, filepath.Join(root, "README.md"), "# app\n")
	write(t, filepath.Join(base, "secret.txt"), "outside\n")
	gittest.Run(t, root, "init", "-q")
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-qm", "start")
	return root
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBlobIsGitsHash: the blob memoryd records is the object name git
// gives the same bytes, tracked or hashed from the working tree.
func TestBlobIsGitsHash(t *testing.T) {
	root := repo(t)
	tracked := gittest.Run(t, root, "rev-parse", "HEAD:src/app.go")
	got, err := cite.Record(root, root, []string{"src/app.go"})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Blob != tracked {
		t.Fatalf("blob %s, git says %s", got[0].Blob, tracked)
	}
	data := []byte("a\x00binary\nfile\r\n")
	write(t, filepath.Join(root, "bin.dat"), string(data))
	if want := gittest.Run(t, root, "hash-object", "bin.dat"); cite.Blob(data) != want {
		t.Fatalf("Blob = %s, git hash-object = %s", cite.Blob(data), want)
	}
}

// TestResolveRefuses: a path outside the root (.., absolute elsewhere, a
// symbolic link out), into .git, missing, or a folder is refused with
// ErrRefused and the path named; paths inside are made root-relative.
func TestResolveRefuses(t *testing.T) {
	root := repo(t)
	outside := filepath.Join(filepath.Dir(root), "secret.txt")
	if err := os.Symlink(outside, filepath.Join(root, "src", "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(root), filepath.Join(root, "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("app.go", filepath.Join(root, "src", "alias.go")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../secret.txt", "src/../../secret.txt", outside, "src/link.txt", "up/secret.txt",
		".git/config", "missing.go", "src", "", "/etc/passwd"} {
		_, err := cite.Resolve(root, root, p)
		if !errors.Is(err, cite.ErrRefused) {
			t.Errorf("Resolve(%q) = %v, want ErrRefused", p, err)
			continue
		}
		if p != "" && !strings.Contains(err.Error(), p) {
			t.Errorf("Resolve(%q): %v does not name the path", p, err)
		}
	}
	for p, want := range map[string]string{"src/app.go": "src/app.go", "./README.md": "README.md",
		filepath.Join(root, "src", "app.go"): "src/app.go", "src/alias.go": "src/alias.go"} {
		got, err := cite.Resolve(root, root, p)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	// Relative to a folder inside the root, as a shell gives it.
	if got, err := cite.Resolve(root, filepath.Join(root, "src"), "app.go"); err != nil || got != "src/app.go" {
		t.Errorf("Resolve from src = %q, %v", got, err)
	}
}

// TestCheckMarks: a fact is stale when a cited file changed or is gone,
// not when it is as recorded; a fact without cites never is; the marker
// names the path and the fact's date.
func TestCheckMarks(t *testing.T) {
	root := repo(t)
	cites, err := cite.Record(root, root, []string{"src/app.go#Run", "README.md"})
	if err != nil {
		t.Fatal(err)
	}
	m := index.NewMemory("project", "app", "How app runs", "It runs.")
	m.Project, m.Cites, m.Updated = "app", cites, "2026-11-02"
	plain := index.NewMemory("project", "plain", "No cites", "Nothing cited.")
	plain.Project = "app"
	chk := cite.NewChecker(filepath.Join(root, "src"))
	if r := chk.Check(m); r.Stale() || r.Unchecked {
		t.Fatalf("fresh fact: %+v", r)
	}
	write(t, filepath.Join(root, "src", "app.go"), "package app // changed\n")
	os.Remove(filepath.Join(root, "README.md"))
	r := chk.Check(m)
	want := "may be stale: src/app.go changed, README.md deleted or moved since 2026-11-02"
	if got := cite.Marker(r.Changes); got != want {
		t.Fatalf("marker %q, want %q", got, want)
	}
	if r := chk.Check(plain); r.Stale() || r.Unchecked {
		t.Fatalf("a fact without cites: %+v", r)
	}
	// From a directory of another project, with no source to find the
	// root by, nothing is compared.
	other := t.TempDir()
	if r := cite.NewChecker(other).Check(m); !r.Unchecked || r.Stale() {
		t.Fatalf("from another project: %+v", r)
	}
	// ... but the newest source's working directory finds it.
	m.Sources = []index.Source{{Agent: "cli", Cwd: root}}
	if r := cite.NewChecker(other).Check(m); !r.Stale() {
		t.Fatalf("from another project, with a source in it: %+v", r)
	}
}

// TestCheckerCacheSeesChanges: the blob cache keys on size and mtime, so
// a change of the file is seen by the same checker.
func TestCheckerCacheSeesChanges(t *testing.T) {
	root := repo(t)
	cites, err := cite.Record(root, root, []string{"src/app.go"})
	if err != nil {
		t.Fatal(err)
	}
	m := index.NewMemory("project", "app", "d", "b")
	m.Project, m.Cites = "app", cites
	chk := cite.NewChecker(root)
	if chk.Check(m).Stale() {
		t.Fatal("stale before any change")
	}
	name := filepath.Join(root, "src", "app.go")
	write(t, name, "package app\n\nfunc Run() {}\n")
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(name, later, later)
	if !chk.Check(m).Stale() {
		t.Fatal("a changed file is not seen through the cache")
	}
}

// TestMarkLines: context's lines of stale facts get the marker; other
// lines stay byte for byte.
func TestMarkLines(t *testing.T) {
	text := "# Memory\n\n## Project\n- [Deploy](project-deploy.md) — How to deploy\n- [Other](project-other.md) — x\n> banner (MEMORY.app.md)\n"
	got := string(cite.MarkLines([]byte(text), func(file string) string {
		if file == "project-deploy.md" {
			return "may be stale: ship.sh changed since 2026-11-02"
		}
		return ""
	}))
	want := strings.Replace(text, "How to deploy\n", "How to deploy (may be stale: ship.sh changed since 2026-11-02)\n", 1)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkCheck is checking 1,000 facts that cite 10 files of 26 KB:
// with one checker ("cached") each file is hashed once and then only
// stat'ed; with a checker per fact ("uncached") every check hashes.
func BenchmarkCheck(b *testing.B) {
	root := b.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	var paths []string
	for i := range 10 {
		p := filepath.Join("src", "f"+string(rune('a'+i))+".go")
		os.MkdirAll(filepath.Join(root, "src"), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte(strings.Repeat("line of code\n", 2000)), 0o644)
		paths = append(paths, p)
	}
	cites, err := cite.Record(root, root, paths)
	if err != nil {
		b.Fatal(err)
	}
	slug := project.Slug(root)
	facts := make([]*index.Memory, 1000)
	for i := range facts {
		m := index.NewMemory("project", "f", "d", "b")
		m.Project, m.Cites = slug, cites[i%10:i%10+1]
		facts[i] = m
	}
	b.Run("cached", func(b *testing.B) {
		chk := cite.NewChecker(root)
		for b.Loop() {
			for _, m := range facts {
				chk.Check(m)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			for _, m := range facts {
				cite.NewChecker(root).Check(m)
			}
		}
	})
}
