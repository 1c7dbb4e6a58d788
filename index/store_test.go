package index

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
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
	if !slices.Contains(lines, "MEMORY.md merge=union") || !slices.Contains(lines, "_CONFLICTS.md merge=union") {
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
