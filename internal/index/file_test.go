package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/protocol"
)

func TestReadCurrent(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "user-a.md", memFile("user", "a", "A"))
	s := NewStore(dir)
	seen := scan(t, s).Memories[0]

	m, err := ReadCurrent(dir, "user-a.md", seen.Hash)
	if err != nil || m.Description != "A" {
		t.Fatalf("unchanged file: %v, %v", m, err)
	}
	if m, err := ReadCurrent(dir, "user-new.md", ""); m != nil || err != nil {
		t.Fatalf("still absent: %v, %v", m, err)
	}

	changed := func(rel, hash, how string) {
		t.Helper()
		_, err := ReadCurrent(dir, rel, hash)
		var ce *ChangedError
		if !errors.Is(err, ErrChanged) || !errors.As(err, &ce) || ce.How != how || ce.File != rel {
			t.Fatalf("ReadCurrent(%s): %v, want %s", rel, err, how)
		}
	}
	write(t, dir, "user-a.md", memFile("user", "a", "edited by hand"))
	changed("user-a.md", seen.Hash, "changed")
	write(t, dir, "user-new.md", memFile("user", "new", "N"))
	changed("user-new.md", "", "appeared")
	os.Remove(filepath.Join(dir, "user-a.md"))
	changed("user-a.md", seen.Hash, "gone")

	// Never through a link, neither the file nor a folder on its path.
	outside := t.TempDir()
	write(t, outside, "user-x.md", memFile("user", "x", "X"))
	os.Symlink(filepath.Join(outside, "user-x.md"), filepath.Join(dir, "user-x.md"))
	os.Symlink(outside, filepath.Join(dir, "sub"))
	for _, rel := range []string{"user-x.md", "sub/user-x.md"} {
		if _, err := ReadCurrent(dir, rel, "x"); err == nil || errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("ReadCurrent(%s) through a link: %v", rel, err)
		}
	}
	if _, err := ReadCurrent(dir, "../user-x.md", "x"); err == nil {
		t.Error("a path leaving the folder was read")
	}
	big := strings.Repeat("x", MaxFileSize+1)
	write(t, dir, "user-big.md", big)
	if _, err := ReadCurrent(dir, "user-big.md", "x"); err == nil || !strings.Contains(err.Error(), "size limit") {
		t.Errorf("file over the limit: %v", err)
	}
}

func TestWriteAndRemoveMemory(t *testing.T) {
	dir := t.TempDir()
	data := []byte(memFile("user", "a", "A"))
	if changed, err := WriteMemory(dir, "user-a.md", data); err != nil || !changed {
		t.Fatalf("write: %v %v", changed, err)
	}
	if changed, err := WriteMemory(dir, "user-a.md", data); err != nil || changed {
		t.Fatalf("same bytes: %v %v", changed, err)
	}
	for _, rel := range []string{IndexFile, ConflictsFile, "notes.txt", "../user-b.md"} {
		if _, err := WriteMemory(dir, rel, data); err == nil {
			t.Errorf("WriteMemory(%s) wrote a file that is not a memory file", rel)
		}
		if err := RemoveMemory(dir, rel); err == nil {
			t.Errorf("RemoveMemory(%s) accepted a file that is not a memory file", rel)
		}
	}
	if err := RemoveMemory(dir, "user-a.md"); err != nil {
		t.Fatal(err)
	}
	if err := RemoveMemory(dir, "user-a.md"); err != nil {
		t.Fatalf("removing a file already gone: %v", err)
	}
}

func TestSettleWritesReservedFilesAndIndex(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "user-a.md", memFile("user", "a", "A"))
	write(t, dir, protocol.File, "my own protocol\n")
	w, err := NewStore(dir).Settle()
	if err != nil || !w.Changed || w.Lines == 0 {
		t.Fatalf("Settle: %+v %v", w, err)
	}
	idx, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	if !strings.Contains(string(idx), "user-a.md") || w.Bytes != len(idx) {
		t.Fatalf("MEMORY.md (%d bytes reported):\n%s", w.Bytes, idx)
	}
	if _, err := os.Stat(filepath.Join(dir, AttributesFile)); err != nil {
		t.Fatal(".gitattributes not written")
	}
	if p, _ := os.ReadFile(filepath.Join(dir, protocol.File)); string(p) != "my own protocol\n" {
		t.Fatalf("the user's PROTOCOL.md was replaced: %q", p)
	}
	if w, err := NewStore(dir).Settle(); err != nil || w.Changed {
		t.Fatalf("second Settle changed MEMORY.md: %+v %v", w, err)
	}
}
