package facts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

func TestMain(m *testing.M) { gittest.Main(m) }

var ctx = context.Background()

// world is a notes repository with a memory folder and a Writer on it.
type world struct {
	t     *testing.T
	root  string
	dir   string
	state string
	w     *Writer
	// folder is the transaction w writes through.
	folder *folder.Folder
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, root: t.TempDir(), state: t.TempDir()}
	w.dir = filepath.Join(w.root, "memory")
	os.MkdirAll(w.dir, 0o755)
	gittest.Run(t, w.root, "init", "-q")
	gittest.Run(t, w.root, "commit", "-q", "--allow-empty", "-m", "start")
	f, err := folder.Open(folder.Options{Dir: w.dir, StateDir: w.state, Wait: 300 * time.Millisecond})
	if err != nil || f.Repo() == nil {
		t.Fatal(err)
	}
	w.folder = f
	w.w = New(Options{Folder: w.folder})
	return w
}

func (w *world) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(w.dir, name))
	return string(b)
}

func (w *world) log() string { return gittest.Run(w.t, w.root, "log", "--format=%s") }

var tabs = Fact{Type: "feedback", Name: "prefers-tabs", Description: "Prefers tabs over spaces", Body: "Use tabs for indentation.\nWhy: said so in review."}

func TestSaveCreatesAndCommits(t *testing.T) {
	w := newWorld(t)
	d, err := w.w.Save(ctx, tabs, false)
	if err != nil || d.File != "feedback-prefers-tabs.md" || d.Action != "created" || d.Commit == "" {
		t.Fatalf("Save = %+v, %v", d, err)
	}
	m, err := index.Parse(d.File, []byte(w.read(d.File)))
	if err != nil || m.Description != tabs.Description || m.Type != "feedback" || !strings.Contains(m.Body, "Use tabs") {
		t.Fatalf("file: %v\n%s", err, w.read(d.File))
	}
	if !strings.Contains(w.read(index.IndexFile), "feedback-prefers-tabs.md") {
		t.Error("MEMORY.md does not list it")
	}
	if got := w.log(); !strings.HasPrefix(got, "memory: add feedback-prefers-tabs.md (cli)") {
		t.Fatalf("history:\n%s", got)
	}
	if st := gittest.Run(t, w.root, "status", "--porcelain"); st != "" {
		t.Fatalf("left uncommitted:\n%s", st)
	}
}

func TestSaveRefuses(t *testing.T) {
	w := newWorld(t)
	if _, err := w.w.Save(ctx, tabs, false); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(w.dir, "user-shell.md"), []byte("---\nname: shell\ndescription: Shell\nmetadata:\n  type: user\n  readonly: true\n---\nUses zsh.\n"), 0o644)
	cases := []struct {
		name    string
		f       Fact
		replace bool
		want    error
		text    string
	}{
		{"unknown type", Fact{Type: "note", Name: "x", Description: "d", Body: "b"}, false, ErrInvalid, "not one of user"},
		{"bad name", Fact{Type: "user", Name: "Bad_Name", Description: "d", Body: "b"}, false, ErrInvalid, "lower-case words"},
		{"empty body", Fact{Type: "user", Name: "x", Description: "d", Body: " "}, false, ErrInvalid, "body is empty"},
		{"two-line description", Fact{Type: "user", Name: "x", Description: "a\nb", Body: "b"}, false, ErrInvalid, "one line"},
		{"secret", Fact{Type: "reference", Name: "deploy", Description: "Deploy token", Body: "Push with ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue."}, false, ErrSecret, "GitHub token on line 3"},
		{"exists", tabs, false, ErrExists, "replace it"},
		{"readonly", Fact{Type: "user", Name: "shell", Description: "Shell is fish", Body: "Uses fish."}, true, ErrReadonly, "never changes it"},
		{"duplicate", Fact{Type: "user", Name: "indent", Description: "Indentation", Body: "use tabs for indentation  why said so in review"}, false, ErrDuplicate, "feedback-prefers-tabs.md"},
	}
	for _, c := range cases {
		_, err := w.w.Save(ctx, c.f, c.replace)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: err = %v, want %v with %q", c.name, err, c.want, c.text)
		}
	}
	if strings.Contains(w.read("user-shell.md"), "fish") {
		t.Error("readonly file changed")
	}
}

func TestReplaceAndForget(t *testing.T) {
	w := newWorld(t)
	w.w.Save(ctx, tabs, false)
	f := tabs
	f.Body = "Use tabs, never spaces, in every language."
	if d, err := w.w.Save(ctx, f, true); err != nil || d.Action != "replaced" {
		t.Fatalf("replace: %+v %v", d, err)
	}
	if !strings.Contains(w.read("feedback-prefers-tabs.md"), "every language") {
		t.Fatal("not replaced")
	}
	if _, err := w.w.Forget(ctx, "prefers-tabs", "", false); !errors.Is(err, ErrInvalid) {
		t.Fatalf("forget without a reason: %v", err)
	}
	d, err := w.w.Forget(ctx, "prefers-tabs", "switched to spaces", false)
	if err != nil || d.Action != "forgot" || d.Commit == "" {
		t.Fatalf("forget: %+v %v", d, err)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "feedback-prefers-tabs.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("still there")
	}
	msg := gittest.Run(t, w.root, "log", "-1", "--format=%B")
	if !strings.HasPrefix(msg, "memory: forget feedback-prefers-tabs.md (cli)") || !strings.Contains(msg, "Reason: switched to spaces") {
		t.Fatalf("commit message:\n%s", msg)
	}
	if _, err := w.w.Forget(ctx, "prefers-tabs", "again", false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("forget twice: %v", err)
	}
}

func TestEditedFileChangedMeanwhile(t *testing.T) {
	w := newWorld(t)
	w.w.Save(ctx, tabs, false)
	snap := scan(t, w.dir)
	m, _ := Find(snap, "prefers-tabs")
	// Someone else writes the file while the person edits their copy.
	os.WriteFile(filepath.Join(w.dir, m.File), []byte(strings.Replace(w.read(m.File), "review", "a meeting", 1)), 0o644)
	edited := strings.Replace(w.read(m.File), "Use tabs", "Always use tabs", 1)
	if _, err := w.w.Replace(ctx, m.File, []byte(edited), m.Hash); !errors.Is(err, index.ErrChanged) {
		t.Fatalf("Replace over a changed file: %v", err)
	}
	if !strings.Contains(w.read(m.File), "a meeting") {
		t.Fatal("the other change was lost")
	}
}

func TestWaitsForTheWriteLock(t *testing.T) {
	w := newWorld(t)
	l, err := state.TryLock(w.state, state.WriteLock, "pid 1, memoryd run (commit)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.w.Save(ctx, tabs, false)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "memoryd run (commit)") {
		t.Fatalf("err = %v", err)
	}
	l.Unlock()
	if _, err := w.w.Save(ctx, tabs, false); err != nil {
		t.Fatal(err)
	}
}

func scan(t *testing.T, dir string) index.Snapshot {
	s := index.NewStore(dir)
	if err := s.Scan(); err != nil {
		t.Fatal(err)
	}
	return s.Snapshot()
}

// TestModelReplaceKeepsHandLines: a save through the MCP server may not
// drop a line a person wrote; the same replacement by a person may.
func TestModelReplaceKeepsHandLines(t *testing.T) {
	w := newWorld(t)
	if _, err := w.w.Save(ctx, tabs, false); err != nil { // written with the CLI: a person's text
		t.Fatal(err)
	}
	mcp := New(Options{Folder: w.folder, Who: "mcp: codex", Model: true})
	f := tabs
	f.Body = "Use tabs."
	if _, err := mcp.Save(ctx, f, true); !errors.Is(err, ErrHandLines) || !strings.Contains(err.Error(), "Use tabs for indentation.") {
		t.Fatalf("model replace: %v", err)
	}
	f.Body = tabs.Body + "\nAlso in Makefiles, where it is required."
	if _, err := mcp.Save(ctx, f, true); err != nil {
		t.Fatalf("a model's replacement that keeps the lines: %v", err)
	}
	f.Body = "Use tabs."
	if _, err := w.w.Save(ctx, f, true); err != nil {
		t.Fatalf("a person's replacement: %v", err)
	}
}

func TestSaveRecordsProjectAndDate(t *testing.T) {
	w := newWorld(t)
	w.w.opts.Now = func() time.Time { return time.Date(2026, 11, 23, 9, 0, 0, 0, time.Local) }
	f := Fact{Type: "project", Name: "release-train", Description: "Releases every other Tuesday", Body: "Releases go out every other Tuesday.", Project: "memoryd"}
	d, err := w.w.Save(ctx, f, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := index.Parse(d.File, []byte(w.read(d.File)))
	if err != nil || m.Project != "memoryd" || m.Updated != "2026-11-23" {
		t.Fatalf("%+v %v\n%s", m, err, w.read(d.File))
	}
	for _, bad := range []Fact{
		{Type: "project", Name: "x", Description: "d", Body: "b", Project: "Not A Slug"},
		{Type: "user", Name: "y", Description: "d", Body: "b", Project: "memoryd"},
	} {
		if _, err := w.w.Save(ctx, bad, false); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestWritesHandTheFolderToSearch: every write hands the search index a
// scan of the folder as the write left it.
func TestWritesHandTheFolderToSearch(t *testing.T) {
	w := newWorld(t)
	var got [][]string
	search := func(_ context.Context, snap index.Snapshot) error {
		var files []string
		for _, m := range snap.Memories {
			files = append(files, m.File)
		}
		got = append(got, files)
		return errors.New("a broken search index does not fail the write")
	}
	f, err := folder.Open(folder.Options{Dir: w.dir, StateDir: w.state, Search: search})
	if err != nil {
		t.Fatal(err)
	}
	w.w = New(Options{Folder: f})
	if _, err := w.w.Save(ctx, tabs, false); err != nil {
		t.Fatal(err)
	}
	item := Item{Fact: Fact{Type: "user", Name: "shell", Description: "Uses fish", Body: "fish"}}
	if _, _, err := w.w.SaveAll(ctx, []Item{item}, func(int) string { return "memory: import" }, false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.w.Forget(ctx, "prefers-tabs", "wrong", false); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"feedback-prefers-tabs.md"}, {"feedback-prefers-tabs.md", "user-shell.md"}, {"user-shell.md"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("search was handed %q, want %q", got, want)
	}
}
