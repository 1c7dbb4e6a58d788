package watcher

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestKqueueFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.md", "b.md", ".hidden.md", "sub/c.md", "sub/deeper/d.md", ".git/HEAD", ".git/objects/x"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	// dir; its entries a.md b.md .hidden.md sub .git; sub's c.md deeper;
	// deeper's d.md. .git is opened as an entry but not watched inside.
	if got, want := KqueueFiles(dir, false), 1+5+2+1; got != want {
		t.Errorf("KqueueFiles = %d, want %d", got, want)
	}
	if got, want := KqueueFiles(dir, true), 1+5; got != want {
		t.Errorf("KqueueFiles flat = %d, want %d", got, want)
	}
	if got := KqueueFiles(filepath.Join(dir, "missing"), false); got != 0 {
		t.Errorf("KqueueFiles of a missing folder = %d", got)
	}
}

func TestOpenFileLimit(t *testing.T) {
	soft, hard, err := OpenFileLimit()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		if err == nil {
			t.Error("no error where there is no limit to read")
		}
		return
	}
	if err != nil || soft == 0 || soft > hard {
		t.Errorf("OpenFileLimit = %d, %d, %v", soft, hard, err)
	}
}
