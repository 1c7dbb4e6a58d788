//go:build linux || darwin

package index

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSnapshotStamps: the stamps of a snapshot are those of an lstat of
// each file read, memories and unreadable files alike; a file the Store
// never stat-ed, or a Snapshot made by hand, has none.
func TestSnapshotStamps(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "user-a.md", memFile("user", "a", "A"))
	write(t, dir, "sub/user-b.md", memFile("user", "b", "B"))
	write(t, dir, "broken.md", "no frontmatter\n")
	s := NewStore(dir)
	if err := s.Scan(); err != nil {
		t.Fatal(err)
	}
	stamps, ok := s.Snapshot().Stamps()
	if !ok || len(stamps) != 3 {
		t.Fatalf("Stamps() = %+v, %v; want the 3 files", stamps, ok)
	}
	for _, f := range stamps {
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(dir, filepath.FromSlash(f.File)), &st); err != nil {
			t.Fatal(err)
		}
		if want := keyFromStat(&st).stamp(); f.Stamp != want {
			t.Errorf("%s: stamp %+v, lstat says %+v", f.File, f.Stamp, want)
		}
	}

	if err := os.Symlink("user-a.md", filepath.Join(dir, "user-link.md")); err != nil {
		t.Fatal(err)
	}
	if err := s.Scan(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Snapshot().Stamps(); ok {
		t.Error("Stamps() of a folder with a symbolic link: ok, want false (the Store never stats a link)")
	}
	if _, ok := (Snapshot{Memories: []*Memory{NewMemory("user", "x", "X", "Body.")}}).Stamps(); ok {
		t.Error("Stamps() of a Snapshot made by hand: ok, want false")
	}
}
