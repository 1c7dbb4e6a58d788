package gitsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/memtest"
)

func TestMain(m *testing.M) { gittest.Main(m) }

// machine is one clone of the notes repository with its memory folder.
type machine struct {
	t     *testing.T
	notes string
	mem   string
	sync  *Syncer
}

// setup makes a bare remote with one commit and two clones of it.
func setup(t *testing.T) (remote string, a, b *machine) {
	t.Helper()
	root := t.TempDir()
	remote = filepath.Join(root, "remote.git")
	gittest.Run(t, root, "init", "-q", "--bare", remote)
	seed := filepath.Join(root, "seed")
	gittest.Run(t, root, "clone", "-q", remote, seed)
	os.MkdirAll(filepath.Join(seed, "memory"), 0o755)
	os.WriteFile(filepath.Join(seed, "README.md"), []byte("# notes\n"), 0o644)
	os.WriteFile(filepath.Join(seed, "memory", "user-name.md"), []byte(fact("name", "the name", "Ada")), 0o644)
	gittest.Run(t, seed, "add", "-A")
	gittest.Run(t, seed, "commit", "-q", "-m", "initial")
	gittest.Run(t, seed, "push", "-q", "origin", "main")
	return remote, clone(t, remote, filepath.Join(root, "a")), clone(t, remote, filepath.Join(root, "b"))
}

func clone(t *testing.T, remote, dir string) *machine {
	t.Helper()
	gittest.Run(t, filepath.Dir(dir), "clone", "-q", remote, dir)
	m := &machine{t: t, notes: dir, mem: filepath.Join(dir, "memory")}
	sd := t.TempDir()
	f, err := folder.Open(folder.Options{Dir: m.mem, StateDir: sd})
	if err != nil || f.Repo() == nil {
		t.Fatal(err, f.RepoErr())
	}
	m.sync = New(Options{Folder: f, StateDir: sd})
	return m
}

// fact is the text of a user fact.
func fact(name, desc, body string) string { return memtest.Fact("user", name, desc, body) }

func (m *machine) write(rel, text string) {
	m.t.Helper()
	p := filepath.Join(m.mem, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

func (m *machine) read(rel string) string {
	data, _ := os.ReadFile(filepath.Join(m.mem, rel))
	return string(data)
}

func (m *machine) commit(msg string) {
	m.t.Helper()
	gittest.Run(m.t, m.notes, "add", "-A")
	gittest.Run(m.t, m.notes, "commit", "-q", "-m", msg)
}

func (m *machine) round() Result {
	m.t.Helper()
	res, err := m.sync.Round(context.Background())
	if err != nil {
		m.t.Fatalf("round: %v (%+v)", err, res)
	}
	return res
}

func (m *machine) head() string { return gittest.Run(m.t, m.notes, "rev-parse", "HEAD") }

// noMarkers fails when a file of the work tree holds a conflict marker.
func (m *machine) noMarkers() {
	m.t.Helper()
	filepath.Walk(m.notes, func(p string, fi os.FileInfo, err error) error {
		if fi != nil && fi.IsDir() && fi.Name() == ".git" {
			return filepath.SkipDir
		}
		if fi != nil && fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			if strings.Contains(string(data), "<<<<<<<") || strings.Contains(string(data), ">>>>>>>") {
				m.t.Errorf("conflict markers in %s:\n%s", p, data)
			}
		}
		return nil
	})
}

func TestFastForwardBothWays(t *testing.T) {
	_, a, b := setup(t)
	a.write("user-editor.md", fact("editor", "the editor", "vim"))
	a.commit("add editor")
	if r := a.round(); r.Pushed != 1 || r.Ahead != 0 {
		t.Fatalf("a: %+v", r)
	}
	r := b.round()
	if r.Pulled != 1 || r.Behind != 0 || !strings.Contains(b.read("user-editor.md"), "vim") {
		t.Fatalf("b: %+v", r)
	}
	if !strings.Contains(b.read(index.IndexFile), "user-editor.md") {
		t.Fatalf("b's index not rebuilt:\n%s", b.read(index.IndexFile))
	}
	// The rebuilt index (when it differed) goes back.
	b.round()
	a.round()
	if a.head() != b.head() {
		t.Fatalf("heads differ: %s %s", a.head(), b.head())
	}
}

func TestBothEditedOneFact(t *testing.T) {
	_, a, b := setup(t)
	a.write("user-name.md", fact("name", "the name", "Ada Lovelace"))
	a.commit("a edits")
	b.write("user-name.md", fact("name", "the name", "Ada King"))
	b.write("user-shell.md", fact("shell", "the shell", "zsh"))
	b.commit("b edits")
	a.round()
	r := b.round()
	if len(r.Review) != 1 || r.Review[0] != "_inbox/user-name.md" || r.Merge == "" || r.Pushed == 0 {
		t.Fatalf("b: %+v", r)
	}
	if got := b.read("user-name.md"); !strings.Contains(got, "Ada Lovelace") {
		t.Fatalf("the remote's version should stay: %s", got)
	}
	if got := b.read("_inbox/user-name.md"); !strings.Contains(got, "Ada King") {
		t.Fatalf("this machine's version should wait for review: %s", got)
	}
	a.round()
	if a.head() != b.head() {
		t.Fatalf("heads differ after a's round: %s %s", a.head(), b.head())
	}
	for _, m := range []*machine{a, b} {
		m.noMarkers()
		if !strings.Contains(m.read("user-shell.md"), "zsh") || !strings.Contains(m.read("_inbox/user-name.md"), "Ada King") {
			t.Fatalf("%s lacks a side", m.notes)
		}
		if st := gittest.Run(t, m.notes, "status", "--porcelain"); st != "" {
			t.Fatalf("%s left changes: %s", m.notes, st)
		}
	}
}

func TestConflictOutsideMemoryPauses(t *testing.T) {
	_, a, b := setup(t)
	os.WriteFile(filepath.Join(a.notes, "README.md"), []byte("# notes from a\n"), 0o644)
	a.commit("a readme")
	os.WriteFile(filepath.Join(b.notes, "README.md"), []byte("# notes from b\n"), 0o644)
	b.commit("b readme")
	a.round()
	before := b.head()
	res, err := b.sync.Round(context.Background())
	if !errors.Is(err, ErrPaused) || res.Conflict != "README.md" || !strings.Contains(res.Paused, "git pull") {
		t.Fatalf("round: %v %+v", err, res)
	}
	if b.head() != before || gittest.Run(t, b.notes, "status", "--porcelain") != "" {
		t.Fatal("a paused round changed something")
	}
	b.noMarkers()
	if res.Ahead != 1 || res.Behind != 1 {
		t.Fatalf("ahead/behind: %+v", res)
	}
}

func TestOfflineAndNoRemote(t *testing.T) {
	remote, a, _ := setup(t)
	os.Rename(remote, remote+".away")
	a.write("user-x.md", fact("x", "x", "x"))
	a.commit("x")
	if _, err := a.sync.Round(context.Background()); !errors.Is(err, ErrOffline) {
		t.Fatalf("remote away: %v", err)
	}
	os.Rename(remote+".away", remote)
	if r := a.round(); r.Pushed != 1 {
		t.Fatalf("back: %+v", r)
	}
	gittest.Run(t, a.notes, "branch", "--unset-upstream")
	gittest.Run(t, a.notes, "remote", "rename", "origin", "elsewhere")
	if _, err := a.sync.Round(context.Background()); !errors.Is(err, ErrNoRemote) {
		t.Fatalf("no upstream: %v", err)
	}
}

func TestStagedChangesPause(t *testing.T) {
	_, a, b := setup(t)
	a.write("user-x.md", fact("x", "x", "x"))
	a.commit("x")
	a.round()
	os.WriteFile(filepath.Join(b.notes, "todo.txt"), []byte("half\n"), 0o644)
	gittest.Run(t, b.notes, "add", "todo.txt")
	res, err := b.sync.Round(context.Background())
	if !errors.Is(err, ErrPaused) || !strings.Contains(res.Paused, "staged") {
		t.Fatalf("round: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(b.mem, "user-x.md")); err == nil {
		t.Fatal("pulled beside staged changes")
	}
}

func TestURLHost(t *testing.T) {
	for raw, want := range map[string]string{
		"https://git.example.com/me/notes.git": "git.example.com",
		"ssh://git@git.example.com:2222/notes": "git.example.com",
		"git@github.com:me/notes.git":          "github.com",
		"/srv/git/notes.git":                   "/srv/git/notes.git",
		"file:///srv/git/notes.git":            "/srv/git/notes.git",
	} {
		if got := urlHost(raw); got != want {
			t.Errorf("urlHost(%q) = %q, want %q", raw, got, want)
		}
	}
}

// Two syncs of one folder at once (the daemon's and `memoryd sync`): the
// second push is refused, but when the remote already holds this
// machine's commits the round ends as pushed; when it holds other commits
// the refusal stands.
func TestRefusedPushWhoseCommitsAreThere(t *testing.T) {
	remote, a, b := setup(t)
	a.write("user-editor.md", fact("editor", "the editor", "vim"))
	a.commit("add editor")
	gittest.Run(t, b.notes, "fetch", "-q", a.notes, "main")
	gittest.Run(t, b.notes, "merge", "-q", "--ff-only", "FETCH_HEAD")
	b.write("user-shell.md", fact("shell", "the shell", "fish"))
	b.commit("add shell")
	gittest.Run(t, b.notes, "push", "-q", "origin", "main")

	ctx := context.Background()
	repo := a.sync.opts.Folder.Repo()
	res := Result{Branch: "main", Remote: "origin", Target: "origin/main", Ahead: 1}
	if err := a.sync.push(ctx, repo, "origin", "main", "refs/remotes/origin/main", &res); err != nil {
		t.Fatalf("push of commits the remote already holds: %v", err)
	}
	if res.Ahead != 0 {
		t.Fatalf("still ahead: %+v", res)
	}
	if got, want := gittest.Run(t, a.notes, "rev-parse", "origin/main"), gittest.Run(t, remote, "rev-parse", "main"); got != want {
		t.Fatalf("tracking ref %s, remote %s", got, want)
	}

	a.write("user-pager.md", fact("pager", "the pager", "less"))
	a.commit("add pager")
	b.write("user-font.md", fact("font", "the font", "Iosevka"))
	b.commit("add font")
	gittest.Run(t, b.notes, "push", "-q", "origin", "main")
	res = Result{Branch: "main", Remote: "origin", Target: "origin/main", Ahead: 1}
	err := a.sync.push(ctx, repo, "origin", "main", "refs/remotes/origin/main", &res)
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "moved on") {
		t.Fatalf("push over other commits: %v", err)
	}
}
