package install

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackgroundNotRunning: stop and uninstall's last step leave a folder
// that no daemon serves as it is, and say so where a person reads it.
func TestBackgroundNotRunning(t *testing.T) {
	var out bytes.Buffer
	root := t.TempDir()
	b := Background{Dir: filepath.Join(root, "memory"), StateDir: filepath.Join(root, "state"), Out: &out}
	if err := b.Control("stop", fmt.Errorf("x: %w", ErrNotInstalled)); err != nil {
		t.Fatal(err)
	}
	if err := b.StopHandRun(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "memoryd is not running for "+b.Dir+"\n" {
		t.Errorf("said %q", got)
	}
}

func TestLastLines(t *testing.T) {
	s := strings.Repeat("a\n", 3) + "b\nc\n"
	if got := lastLines(s, 2); got != "b\nc" {
		t.Errorf("%q", got)
	}
	if got := lastLines("one", 5); got != "one" {
		t.Errorf("%q", got)
	}
}

func TestNoService(t *testing.T) {
	if !NoService(fmt.Errorf("start: %w", ErrNoUserManager)) || NoService(fmt.Errorf("start: other")) {
		t.Error("NoService")
	}
}
