package project

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/gittest"
)

func TestMain(m *testing.M) { gittest.Main(m) }

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// newRepo makes a git repository with one commit at dir.
func newRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "add", "README")
	gittest.Run(t, dir, "commit", "-q", "-m", "first")
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSlugPlainRepoAndSubdirectory(t *testing.T) {
	needGit(t)
	repo := filepath.Join(t.TempDir(), "memoryd")
	newRepo(t, repo)
	deep := mkdir(t, repo, "cmd", "Other Name")
	for _, dir := range []string{repo, deep, filepath.Join(repo, "cmd")} {
		if got := Slug(dir); got != "memoryd" {
			t.Errorf("Slug(%s) = %q, want memoryd", dir, got)
		}
	}
}

func TestSlugLinkedWorktree(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	repo := filepath.Join(root, "main-repo")
	newRepo(t, repo)
	wt := filepath.Join(root, "feature-x-checkout")
	gittest.Run(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	sub := mkdir(t, wt, "pkg")
	for _, dir := range []string{wt, sub} {
		if got := Slug(dir); got != "main-repo" {
			t.Errorf("Slug(%s) = %q, want main-repo (the main repository)", dir, got)
		}
	}

	// Without commondir, the parent of "worktrees" is the common git dir.
	gitdir := strings.TrimSpace(strings.TrimPrefix(readOrFail(t, filepath.Join(wt, ".git")), "gitdir:"))
	if err := os.Remove(filepath.Join(gitdir, "commondir")); err != nil {
		t.Fatal(err)
	}
	if got := Slug(sub); got != "main-repo" {
		t.Errorf("without commondir: Slug = %q, want main-repo", got)
	}
}

func TestSlugWorktreeOfBareRepository(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	src := filepath.Join(root, "src")
	newRepo(t, src)
	gittest.Run(t, root, "clone", "-q", "--bare", src, "Tools.git")
	wt := filepath.Join(root, "checkout")
	gittest.Run(t, filepath.Join(root, "Tools.git"), "worktree", "add", "-q", wt)
	if got := Slug(wt); got != "tools" {
		t.Errorf("Slug = %q, want tools", got)
	}
}

func TestSlugSubmoduleIsItsOwnProject(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	lib := filepath.Join(root, "lib-src")
	newRepo(t, lib)
	app := filepath.Join(root, "app")
	newRepo(t, app)
	gittest.Run(t, app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/Lib")
	if got := Slug(filepath.Join(app, "vendor", "Lib")); got != "lib" {
		t.Errorf("submodule: Slug = %q, want lib", got)
	}
	if got := Slug(filepath.Join(app, "vendor")); got != "app" {
		t.Errorf("beside the submodule: Slug = %q, want app", got)
	}
}

func TestSlugSpacesAndCapitals(t *testing.T) {
	needGit(t)
	repo := filepath.Join(t.TempDir(), "My Project")
	newRepo(t, repo)
	if got := Slug(mkdir(t, repo, "docs")); got != "my-project" {
		t.Errorf("Slug = %q, want my-project", got)
	}
}

func TestSlugNoRepository(t *testing.T) {
	dir := mkdir(t, t.TempDir(), "Scratch_Pad 2")
	if got := Slug(dir); got != "scratch-pad-2" {
		t.Errorf("Slug = %q, want scratch-pad-2", got)
	}
	if got := Slug(filepath.Join(dir, "does", "not", "exist")); got != "exist" {
		t.Errorf("missing folder: Slug = %q, want exist", got)
	}
	if got := Slug(string(filepath.Separator)); got != "project" {
		t.Errorf("root: Slug = %q, want project", got)
	}
}

func TestSlugRelativeDir(t *testing.T) {
	needGit(t)
	repo := filepath.Join(t.TempDir(), "rel-repo")
	newRepo(t, repo)
	mkdir(t, repo, "a")
	t.Chdir(filepath.Join(repo, "a"))
	for _, dir := range []string{"", ".", "..", "../a"} {
		if got := Slug(dir); got != "rel-repo" {
			t.Errorf("Slug(%q) = %q, want rel-repo", dir, got)
		}
	}
}

func TestSlugSymlinkedDir(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	repo := filepath.Join(root, "real-repo")
	newRepo(t, repo)
	sub := mkdir(t, repo, "sub")
	link := filepath.Join(mkdir(t, root, "elsewhere"), "shortcut")
	if err := os.Symlink(sub, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if got := Slug(link); got != "real-repo" {
		t.Errorf("Slug(link) = %q, want real-repo", got)
	}
	// A link to a folder outside any repository is named after its target.
	plain := mkdir(t, root, "Target Dir")
	link2 := filepath.Join(root, "elsewhere", "other")
	if err := os.Symlink(plain, link2); err != nil {
		t.Fatal(err)
	}
	if got := Slug(link2); got != "target-dir" {
		t.Errorf("Slug(link to plain folder) = %q, want target-dir", got)
	}
}

func TestSlugUnreadableGitFile(t *testing.T) {
	dir := mkdir(t, t.TempDir(), "odd")
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("not a gitdir line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Slug(mkdir(t, dir, "x")); got != "odd" {
		t.Errorf("Slug = %q, want odd", got)
	}
}

func readOrFail(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestKebab(t *testing.T) {
	for in, want := range map[string]string{
		"memoryd":                      "memoryd",
		"My Project":                   "my-project",
		"  --Hello__World--  ":         "hello-world",
		"Über_Tool.v2":                 "ber-tool-v2",
		"项目":                           "project",
		"":                             "project",
		"a.b.c":                        "a-b-c",
		"CamelCase42":                  "camelcase42",
		strings.Repeat("ab", 40):       strings.Repeat("ab", 32),
		strings.Repeat("a", 63) + " b": strings.Repeat("a", 63),
	} {
		got := Kebab(in)
		if got != want {
			t.Errorf("Kebab(%q) = %q, want %q", in, got, want)
		}
		if !Valid(got) {
			t.Errorf("Kebab(%q) = %q is not Valid", in, got)
		}
	}
}

func TestValid(t *testing.T) {
	good := []string{"a", "memoryd", "my-project", "x1-2-y", strings.Repeat("a", 64)}
	bad := []string{"", "-a", "a-", "a--b", "A", "a_b", "a b", "é", "a.md", strings.Repeat("a", 65)}
	for _, s := range good {
		if !Valid(s) {
			t.Errorf("Valid(%q) = false", s)
		}
	}
	for _, s := range bad {
		if Valid(s) {
			t.Errorf("Valid(%q) = true", s)
		}
	}
}

func FuzzKebab(f *testing.F) {
	for _, s := range []string{"My Project", "", "a--b", "ÄÖÜ", strings.Repeat("x-", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := Kebab(s)
		if !Valid(k) || Kebab(k) != k {
			t.Fatalf("Kebab(%q) = %q", s, k)
		}
	})
}

// BenchmarkSlug is what every agent session start pays: a subdirectory of
// a linked worktree, four folders deep.
func BenchmarkSlug(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	root := b.TempDir()
	repo := filepath.Join(root, "bench-repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		b.Fatal(err)
	}
	gittest.Run(b, repo, "init", "-q")
	gittest.Run(b, repo, "commit", "-q", "--allow-empty", "-m", "first")
	wt := filepath.Join(root, "wt")
	gittest.Run(b, repo, "worktree", "add", "-q", "-b", "w", wt)
	deep := filepath.Join(wt, "a", "b", "c", "d")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if Slug(deep) != "bench-repo" {
			b.Fatal("wrong slug")
		}
	}
}
