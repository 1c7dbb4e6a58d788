package index

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/gittest"
)

func write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func memFile(typ, name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\nmetadata:\n  type: " + typ + "\n---\nBody of " + name + ".\n"
}

func files(s Snapshot) (mems, unread []string) {
	for _, m := range s.Memories {
		mems = append(mems, m.File)
	}
	for _, u := range s.Unreadable {
		unread = append(unread, u.File)
	}
	return mems, unread
}

func scan(t *testing.T, s *Store) Snapshot {
	t.Helper()
	if err := s.Scan(); err != nil {
		t.Fatal(err)
	}
	return s.Snapshot()
}

func checkFiles(t *testing.T, s Snapshot, mems, unread []string) {
	t.Helper()
	gm, gu := files(s)
	if !slices.Equal(gm, mems) || !slices.Equal(gu, unread) {
		t.Fatalf("memories %q, unreadable %q\nwant %q, %q", gm, gu, mems, unread)
	}
}

func TestStoreScan(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.md", memFile("user", "secret", "outside"))
	write(t, dir, "user-a.md", memFile("user", "a", "A"))
	write(t, dir, "feedback-b.md", memFile("feedback", "b", "B"))
	write(t, dir, "sub/project-c.md", memFile("project", "c", "C"))
	write(t, dir, "deep/er/z.md", memFile("reference", "z", "Z"))
	write(t, dir, "broken.md", "---\nname: x\ndescription: a: b\n---\n")
	for _, rel := range []string{".hidden/x.md", "sub/.git/y.md", ".h.md", "notes.txt", "x.md~", "MEMORY.md", "PROTOCOL.md"} {
		write(t, dir, rel, memFile("user", "ignored", "must not show"))
	}
	write(t, dir, "_CONFLICTS.md", "# Conflicts\n\n## one\n\n## two\n")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}

	s := NewStore(dir)
	snap := scan(t, s)
	checkFiles(t, snap, []string{"deep/er/z.md", "feedback-b.md", "sub/project-c.md", "user-a.md"}, []string{"broken.md", "link.md"})
	if snap.Conflicts != 2 {
		t.Fatalf("conflicts %d", snap.Conflicts)
	}
	var pe *ParseError
	if !errors.As(snap.Unreadable[0].Err, &pe) || pe.Line != 3 {
		t.Fatalf("broken.md: %v", snap.Unreadable[0].Err)
	}
	if !errors.As(snap.Unreadable[1].Err, &pe) || !strings.Contains(pe.Msg, "symbolic link") {
		t.Fatalf("link.md: %v", snap.Unreadable[1].Err)
	}
	if m := snap.Memories[1]; m.Name != "b" || m.Type != "feedback" || m.Body != "Body of b.\n" {
		t.Fatalf("feedback-b.md: %+v", *m)
	}
}

func TestStoreMissingFolder(t *testing.T) {
	s := NewStore(filepath.Join(t.TempDir(), "nope"))
	if err := s.Scan(); err == nil {
		t.Fatal("Scan of a missing folder succeeded")
	}
}

func TestStoreReparsesOnlyChangedFiles(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		write(t, dir, string(rune('a'+i))+".md", memFile("user", string(rune('a'+i)), "d"))
	}
	s := NewStore(dir)
	scan(t, s)
	if n := s.parses.Load(); n != 20 {
		t.Fatalf("first scan parsed %d files", n)
	}
	write(t, dir, "c.md", memFile("user", "c", "changed description"))
	snap := scan(t, s)
	if n := s.parses.Load(); n != 21 {
		t.Fatalf("after one change: %d parses, want 21", n)
	}
	if snap.Memories[2].Description != "changed description" {
		t.Fatalf("c.md not updated: %+v", *snap.Memories[2])
	}
	write(t, dir, "new.md", memFile("user", "new", "d"))
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	snap = scan(t, s)
	if n := s.parses.Load(); n != 22 || len(snap.Memories) != 20 || snap.Memories[0].File != "b.md" {
		t.Fatalf("after add+delete: %d parses, %d memories", n, len(snap.Memories))
	}
}

func TestStoreSkipsReadingSettledFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", memFile("user", "a", "d"))
	write(t, dir, "b.md", memFile("user", "b", "d"))
	s := NewStore(dir)
	scan(t, s)
	// Just written: a rescan reads them again (timestamps may be coarse)
	// but does not parse them again.
	scan(t, s)
	if r, p := s.reads.Load(), s.parses.Load(); r != 4 || p != 2 {
		t.Fatalf("reads %d parses %d, want 4 2", r, p)
	}
	// Once they are older than the racy window, a rescan only stats them.
	s.now = func() time.Time { return time.Now().Add(time.Hour) }
	scan(t, s)
	scan(t, s)
	if r := s.reads.Load(); r != 6 {
		t.Fatalf("reads %d, want 6", r)
	}
}

func TestStoreSeesSameSizeEditWithRestoredMtime(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("needs the change time from stat")
	}
	dir := t.TempDir()
	write(t, dir, "a.md", memFile("user", "a", "one"))
	old := time.Now().Add(-time.Hour)
	p := filepath.Join(dir, "a.md")
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	s := NewStore(dir)
	s.now = func() time.Time { return time.Now().Add(time.Hour) }
	scan(t, s)
	f, err := os.OpenFile(p, os.O_WRONLY, 0) // same inode, same size
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(memFile("user", "a", "two"))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if d := scan(t, s).Memories[0].Description; d != "two" {
		t.Fatalf("description %q: edit not seen", d)
	}
}

func TestStoreRefresh(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	scan(t, s)
	refresh := func(rel string) Snapshot {
		t.Helper()
		if err := s.Refresh(rel); err != nil {
			t.Fatalf("Refresh(%s): %v", rel, err)
		}
		return s.Snapshot()
	}

	write(t, dir, "b.md", memFile("user", "b", "one"))
	checkFiles(t, refresh("b.md"), []string{"b.md"}, nil)
	write(t, dir, "b.md", memFile("user", "b", "two"))
	if d := refresh("b.md").Memories[0].Description; d != "two" {
		t.Fatalf("changed file: %q", d)
	}
	write(t, dir, "a.md", "no frontmatter")
	checkFiles(t, refresh("a.md"), []string{"b.md"}, []string{"a.md"})
	write(t, dir, "a.md", memFile("user", "a", "fixed"))
	checkFiles(t, refresh("a.md"), []string{"a.md", "b.md"}, nil)

	// A directory appearing (say, moved in) is scanned.
	write(t, dir, "sub/x.md", memFile("user", "x", "d"))
	write(t, dir, "sub/deeper/y.md", memFile("user", "y", "d"))
	write(t, dir, "sub/.cache/z.md", memFile("user", "z", "d"))
	checkFiles(t, refresh("sub"), []string{"a.md", "b.md", "sub/deeper/y.md", "sub/x.md"}, nil)
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "sub-x.md", memFile("user", "sub-x", "d")) // sorts between sub and sub/
	refresh("sub-x.md")
	checkFiles(t, refresh("sub"), []string{"a.md", "b.md", "sub-x.md"}, nil)

	if err := os.Remove(filepath.Join(dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, refresh("b.md"), []string{"a.md", "sub-x.md"}, nil)

	// Ignored and reserved paths change nothing; _CONFLICTS.md is counted.
	write(t, dir, "notes.txt", "x")
	write(t, dir, ".x.md", memFile("user", "x", "d"))
	write(t, dir, "MEMORY.md", "# Memory\n")
	for _, rel := range []string{"notes.txt", ".x.md", "MEMORY.md", "gone.md", "./a.md"} {
		checkFiles(t, refresh(rel), []string{"a.md", "sub-x.md"}, nil)
	}
	write(t, dir, "_CONFLICTS.md", "## a\n")
	if n := refresh("_CONFLICTS.md").Conflicts; n != 1 {
		t.Fatalf("conflicts %d", n)
	}
	if err := s.Refresh("../a.md"); err == nil {
		t.Fatal("Refresh(../a.md) succeeded")
	}
	if err := s.Refresh("."); err != nil || len(s.Snapshot().Memories) != 2 {
		t.Fatalf("Refresh(.): %v", err)
	}
}

func TestStoreRefreshFileBecomesDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "x.md", memFile("user", "x", "d"))
	s := NewStore(dir)
	scan(t, s)
	if err := os.Remove(filepath.Join(dir, "x.md")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "x.md/inner.md", memFile("user", "inner", "d"))
	if err := s.Refresh("x.md"); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, s.Snapshot(), []string{"x.md/inner.md"}, nil)
	if err := os.RemoveAll(filepath.Join(dir, "x.md")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "x.md", memFile("user", "x", "d"))
	if err := s.Refresh("x.md"); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, s.Snapshot(), []string{"x.md"}, nil)
}

func TestStoreRefreshNeverFollowsLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.md", memFile("user", "secret", "outside"))
	if err := os.Symlink(outside, filepath.Join(dir, "ln")); err != nil {
		t.Fatal(err)
	}
	s := NewStore(dir)
	scan(t, s)
	for _, rel := range []string{"ln", "ln/secret.md"} {
		if err := s.Refresh(rel); err != nil {
			t.Fatal(err)
		}
		checkFiles(t, s.Snapshot(), nil, nil)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "x.md")); err != nil {
		t.Fatal(err)
	}
	if err := s.Refresh("x.md"); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, s.Snapshot(), nil, []string{"x.md"})
}

func TestStoreTooBig(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "big.md", "---\nname: big\n---\n"+strings.Repeat("x", MaxFileSize))
	s := NewStore(dir)
	snap := scan(t, s)
	checkFiles(t, snap, nil, []string{"big.md"})
	if s.reads.Load() != 0 {
		t.Fatal("read a file it should only have stat'ed")
	}
	if !strings.Contains(snap.Unreadable[0].Err.Error(), "big.md: file is 262162 bytes, more than the limit") {
		t.Fatal(snap.Unreadable[0].Err)
	}
}

func TestWriteIndexOnlyOnChange(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "user-a.md", memFile("user", "a", "A"))
	s := NewStore(dir)
	scan(t, s)
	w, err := s.WriteIndex()
	if err != nil || !w.Changed {
		t.Fatalf("first write: %v %v", w, err)
	}
	p := filepath.Join(dir, IndexFile)
	got, _ := os.ReadFile(p)
	if string(got) != string(Build(s.Snapshot())) {
		t.Fatalf("MEMORY.md:\n%s", got)
	}
	if w.Bytes != len(got) || w.Lines != strings.Count(string(got), "\n") {
		t.Fatalf("WriteIndex reports %d lines, %d bytes for\n%s", w.Lines, w.Bytes, got)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	scan(t, s)
	if w, err := s.WriteIndex(); err != nil || w.Changed {
		t.Fatalf("unchanged: %v %v", w, err)
	}
	if fi, _ := os.Stat(p); !fi.ModTime().Equal(old) {
		t.Fatalf("MEMORY.md touched: mtime %v", fi.ModTime())
	}
	write(t, dir, "user-a.md", memFile("user", "a", "new description"))
	if err := s.Refresh("user-a.md"); err != nil {
		t.Fatal(err)
	}
	if w, err := s.WriteIndex(); err != nil || !w.Changed {
		t.Fatalf("after change: %v %v", w, err)
	}
	if got, _ := os.ReadFile(p); !strings.Contains(string(got), "— new description\n") {
		t.Fatalf("MEMORY.md:\n%s", got)
	}
}

func TestWriteAttributes(t *testing.T) {
	dir := t.TempDir()
	changed, err := WriteAttributes(dir)
	if err != nil || !changed {
		t.Fatalf("%v %v", changed, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, AttributesFile))
	lines := strings.Split(string(got), "\n")
	if !slices.Contains(lines, "MEMORY.md merge=union") || !slices.Contains(lines, "_CONFLICTS.md merge=union") ||
		!slices.Contains(lines, "MEMORY.*.md merge=union") {
		t.Fatalf(".gitattributes:\n%s", got)
	}
	if changed, err := WriteAttributes(dir); err != nil || changed {
		t.Fatalf("second call: %v %v", changed, err)
	}
	write(t, dir, AttributesFile, "*.md text\n")
	if changed, err := WriteAttributes(dir); err != nil || changed {
		t.Fatalf("user file: %v %v", changed, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, AttributesFile)); string(got) != "*.md text\n" {
		t.Fatalf("user's .gitattributes overwritten: %q", got)
	}
}

func TestWriteAttributesUpgradesOnlyItsOwnOldText(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, AttributesFile, oldAttributes[0])
	if changed, err := WriteAttributes(dir); err != nil || !changed {
		t.Fatalf("old memoryd text: %v %v", changed, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, AttributesFile)); string(got) != attributes {
		t.Fatalf("not upgraded: %q", got)
	}
	edited := oldAttributes[0] + "*.png binary\n"
	write(t, dir, AttributesFile, edited)
	if changed, err := WriteAttributes(dir); err != nil || changed {
		t.Fatalf("edited copy: %v %v", changed, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, AttributesFile)); string(got) != edited {
		t.Fatalf("edited copy changed: %q", got)
	}
}

// TestGitattributesCoverProjectIndexes asks git itself which files the
// written .gitattributes merges by union.
func TestGitattributesCoverProjectIndexes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	gittest.Run(t, dir, "init", "-q")
	if _, err := WriteAttributes(dir); err != nil {
		t.Fatal(err)
	}
	out := gittest.Run(t, dir, "check-attr", "merge", "--", "MEMORY.md", "MEMORY.memoryd.md", "_CONFLICTS.md", "user-x.md")
	want := "MEMORY.md: merge: union\nMEMORY.memoryd.md: merge: union\n_CONFLICTS.md: merge: union\nuser-x.md: merge: unspecified"
	if out != want {
		t.Fatalf("git check-attr:\n%s\nwant:\n%s", out, want)
	}
}

func readIndexes(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "MEMORY") {
			out = append(out, e.Name())
		}
	}
	return out
}

func projFile(typ, name, proj string) string {
	return "---\nname: " + name + "\ndescription: about " + name + "\nmetadata:\n  type: " + typ + "\n  project: " + proj + "\n---\nBody.\n"
}

func TestWriteIndexProjects(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "user-a.md", memFile("user", "a", "A"))
	write(t, dir, "project-b.md", projFile("project", "b", "billing"))
	write(t, dir, "project-c.md", projFile("project", "c", "memoryd"))
	write(t, dir, "project-d.md", projFile("project", "d", "memoryd"))
	write(t, dir, "MEMORY.Notes.md", "hand-written, not ours\n")
	s := NewStore(dir)
	w, err := s.Settle()
	if err != nil {
		t.Fatal(err)
	}
	if got := readIndexes(t, dir); !slices.Equal(got, []string{"MEMORY.Notes.md", "MEMORY.billing.md", "MEMORY.md", "MEMORY.memoryd.md"}) {
		t.Fatalf("index files %v", got)
	}
	if !w.Changed || len(w.Files) != 3 || w.Files[0].File != IndexFile || w.Files[2].File != "MEMORY.memoryd.md" ||
		!slices.Equal(w.Paths, []string{"MEMORY.billing.md", "MEMORY.md", "MEMORY.memoryd.md"}) {
		t.Fatalf("Written %+v", w)
	}
	for _, f := range w.Files {
		data, _ := os.ReadFile(filepath.Join(dir, f.File))
		if f.Lines != countLines(data) || f.Bytes != len(data) || !f.Changed {
			t.Fatalf("%+v for\n%s", f, data)
		}
		if w.Lines < f.Lines || w.Bytes < f.Bytes {
			t.Fatalf("Written %d lines %d bytes, less than %+v", w.Lines, w.Bytes, f)
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, "MEMORY.memoryd.md"))
	if !strings.Contains(string(got), "project-c.md") || !strings.Contains(string(got), "project-d.md") || strings.Contains(string(got), "project-b.md") {
		t.Fatalf("MEMORY.memoryd.md:\n%s", got)
	}

	// Unchanged: nothing written.
	if w, err := s.WriteIndex(); err != nil || w.Changed || len(w.Paths) != 0 {
		t.Fatalf("unchanged: %+v %v", w, err)
	}

	// The last fact of billing goes: its index goes too, and MEMORY.md changes.
	if err := os.Remove(filepath.Join(dir, "project-b.md")); err != nil {
		t.Fatal(err)
	}
	if err := s.Refresh("project-b.md"); err != nil {
		t.Fatal(err)
	}
	w, err = s.WriteIndex()
	if err != nil || !w.Changed || !slices.Equal(w.Paths, []string{"MEMORY.billing.md", "MEMORY.md"}) {
		t.Fatalf("after removing billing's last fact: %+v %v", w, err)
	}
	if got := readIndexes(t, dir); !slices.Equal(got, []string{"MEMORY.Notes.md", "MEMORY.md", "MEMORY.memoryd.md"}) {
		t.Fatalf("index files %v", got)
	}

	// A fact moved to another project by an edit moves its index.
	write(t, dir, "project-c.md", projFile("project", "c", "other"))
	write(t, dir, "project-d.md", projFile("project", "d", "other"))
	for _, rel := range []string{"project-c.md", "project-d.md"} {
		if err := s.Refresh(rel); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.WriteIndex(); err != nil {
		t.Fatal(err)
	}
	if got := readIndexes(t, dir); !slices.Equal(got, []string{"MEMORY.Notes.md", "MEMORY.md", "MEMORY.other.md"}) {
		t.Fatalf("index files %v", got)
	}

	// A stale index that appears (a pull, another writer) is removed once
	// the Store hears of it; a deleted project index is written again.
	write(t, dir, "MEMORY.pulled.md", string(BuildIndex(Snapshot{}, "pulled", Budget{})))
	if err := s.Refresh("MEMORY.pulled.md"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "MEMORY.other.md")); err != nil {
		t.Fatal(err)
	}
	if err := s.Refresh("MEMORY.other.md"); err != nil {
		t.Fatal(err)
	}
	if snap := s.Snapshot(); len(snap.Memories) != 3 || len(snap.Unreadable) != 0 {
		t.Fatalf("index files read as memories: %+v", snap)
	}
	w, err = s.WriteIndex()
	if err != nil || !slices.Equal(w.Paths, []string{"MEMORY.other.md", "MEMORY.pulled.md"}) {
		t.Fatalf("%+v %v", w, err)
	}
	if got := readIndexes(t, dir); !slices.Equal(got, []string{"MEMORY.Notes.md", "MEMORY.md", "MEMORY.other.md"}) {
		t.Fatalf("index files %v", got)
	}

	// A fresh Store finds stale indexes by scanning.
	write(t, dir, "MEMORY.gone.md", "# Memory — gone\n\n"+indexComment+"\n- [Old](project-old.md)\n")
	if _, err := NewStore(dir).Settle(); err != nil {
		t.Fatal(err)
	}
	if got := readIndexes(t, dir); !slices.Equal(got, []string{"MEMORY.Notes.md", "MEMORY.md", "MEMORY.other.md"}) {
		t.Fatalf("index files %v", got)
	}
}

func TestWriteIndexBudget(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		write(t, dir, fmt.Sprintf("user-f%02d.md", i), memFile("user", fmt.Sprintf("f%02d", i), "d"))
	}
	s := NewStore(dir)
	s.SetBudget(Budget{Lines: 20, Bytes: 100_000})
	scan(t, s)
	w, err := s.WriteIndex()
	if err != nil {
		t.Fatal(err)
	}
	if w.Lines != 20 || w.Omitted != 40-13 || w.Files[0].Omitted != w.Omitted {
		t.Fatalf("%+v", w)
	}
	s.SetBudget(Budget{})
	if w, err := s.WriteIndex(); err != nil || !w.Changed || w.Omitted != 0 {
		t.Fatalf("default budget: %+v %v", w, err)
	}
}
