//go:build unix

package index

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestStoreUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewStore(dir)
	snap := scan(t, s)
	checkFiles(t, snap, nil, []string{"fifo.md"})
	if s.reads.Load() != 0 {
		t.Fatal("opened a fifo")
	}
	if os.Geteuid() == 0 {
		return // root reads anything
	}
	write(t, dir, "locked/x.md", memFile("user", "x", "d"))
	write(t, dir, "private.md", memFile("user", "p", "d"))
	if err := os.Chmod(filepath.Join(dir, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "locked"), 0o755) })
	if err := os.Chmod(filepath.Join(dir, "private.md"), 0); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, scan(t, s), nil, []string{"fifo.md", "locked/", "private.md"})
}
