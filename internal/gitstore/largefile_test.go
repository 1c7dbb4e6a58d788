package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLargeFileNotReadWhole: comparing a 64 MiB file with HEAD streams it,
// and once its hash is known it is not read again until its stat changes
// (a 100 MB file used to be read whole on every commit: 427 MB RSS).
func TestLargeFileNotReadWhole(t *testing.T) {
	root, dir := newRepo(t, "")
	big := filepath.Join(dir, "x.md")
	if err := os.WriteFile(big, bytes.Repeat([]byte("0123456789abcdef\n"), 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	commitAll(t, root, "big file")
	r := open(t, dir)
	alloc := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	before := alloc()
	if got := changes(t, r); got != "" {
		t.Fatalf("changes: %q", got)
	}
	if a := alloc() - before; a > 16<<20 {
		t.Fatalf("comparing the file allocated %d MiB", a>>20)
	}
	before = alloc()
	changes(t, r)
	if a := alloc() - before; a > 4<<20 {
		t.Fatalf("the unchanged file was read again: %d MiB allocated", a>>20)
	}
	// A change is still seen.
	f, _ := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("more\n")
	f.Close()
	if got := changes(t, r); got == "" {
		t.Fatal("the appended file is not seen as changed")
	}
}
