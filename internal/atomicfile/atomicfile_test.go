package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteCreatesReplacesAndSkipsSameBytes(t *testing.T) {
	dir := t.TempDir()
	changed, err := Write(dir, "a.md", []byte("one"), 0o644)
	if err != nil || !changed {
		t.Fatalf("first write: changed=%v err=%v", changed, err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "a.md"), old, old); err != nil {
		t.Fatal(err)
	}
	changed, err = Write(dir, "a.md", []byte("one"), 0o644)
	if err != nil || changed {
		t.Fatalf("same bytes: changed=%v err=%v", changed, err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "a.md"))
	if !fi.ModTime().Equal(old) {
		t.Fatalf("same-bytes write touched the file: mtime %v", fi.ModTime())
	}
	if changed, err = Write(dir, "a.md", []byte("two"), 0o644); err != nil || !changed {
		t.Fatalf("replace: changed=%v err=%v", changed, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a.md"))
	if string(got) != "two" {
		t.Fatalf("content %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestWriteKeepsPermissions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, "a.md", []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestWriteRefusesSymlinkAndEscape(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, "link.md", []byte("evil"), 0o644); !errors.Is(err, ErrSymlink) {
		t.Fatalf("write through symlink: err=%v", err)
	}
	for _, name := range []string{"../x.md", "/etc/passwd", ""} {
		if _, err := Write(dir, name, []byte("evil"), 0o644); err == nil {
			t.Errorf("Write(%q) succeeded", name)
		}
	}
	got, _ := os.ReadFile(outside)
	if string(got) != "keep" {
		t.Fatalf("outside file changed: %q", got)
	}
}

func TestIsTemp(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), TempPrefix+"*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !IsTemp(filepath.Base(f.Name())) || IsTemp("a.md") {
		t.Fatal("IsTemp misclassifies")
	}
}
