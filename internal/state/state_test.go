package state

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirSameForSymlinkedSpelling(t *testing.T) {
	home := t.TempDir()
	mem := filepath.Join(t.TempDir(), "memory")
	os.Mkdir(mem, 0o755)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(mem, link); err != nil {
		t.Fatal(err)
	}
	a, err := Dir(home, mem)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Dir(home, link+"/")
	if a != b {
		t.Fatalf("%s != %s", a, b)
	}
	if len(filepath.Base(a)) != 16 || filepath.Dir(a) != filepath.Join(home, "memoryd") {
		t.Fatalf("unexpected state dir %s", a)
	}
	other, _ := Dir(home, t.TempDir())
	if other == a {
		t.Fatal("two folders share a state dir")
	}
}

func TestJSONRoundTripAndModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	var v struct{ N int }
	if err := ReadJSON(dir, "x.json", &v); !IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
	v.N = 7
	if err := WriteJSON(dir, "x.json", v); err != nil {
		t.Fatal(err)
	}
	v.N = 0
	if err := ReadJSON(dir, "x.json", &v); err != nil || v.N != 7 {
		t.Fatalf("read back %v %v", v, err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "x.json"))
	di, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("modes file %v dir %v", fi.Mode().Perm(), di.Mode().Perm())
	}
}

// TestLockAcrossProcesses holds the lock here and asks a child process (this
// test binary) to take it: the child must fail naming this process.
func TestLockAcrossProcesses(t *testing.T) {
	if d := os.Getenv("STATE_LOCK_CHILD"); d != "" {
		_, err := TryLock(d, "daemon.lock", "child")
		if errors.Is(err, ErrLocked) {
			os.Stdout.WriteString("LOCKED: " + err.Error())
			os.Exit(0)
		}
		os.Stdout.WriteString("GOT LOCK")
		os.Exit(0)
	}
	dir := t.TempDir()
	l, err := TryLock(dir, "daemon.lock", "pid 4242, memoryd run")
	if err != nil {
		t.Fatal(err)
	}
	child := func() string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockAcrossProcesses$")
		cmd.Env = append(os.Environ(), "STATE_LOCK_CHILD="+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if out := child(); !strings.Contains(out, "LOCKED") || !strings.Contains(out, "pid 4242") {
		t.Fatalf("child while held: %q", out)
	}
	l.Unlock()
	if out := child(); !strings.Contains(out, "GOT LOCK") {
		t.Fatalf("child after unlock: %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "daemon.lock")); err != nil {
		t.Fatal("lock file removed")
	}
}

// TestTryLockNamesItsHolder: a refused TryLock quotes what the holder
// wrote about itself, the latest holder's whole line only, though an
// earlier holder's was longer (the owner file is written in place).
func TestTryLockNamesItsHolder(t *testing.T) {
	dir := t.TempDir()
	for _, owner := range []string{"pid 123456, memoryd recall-tool (a long description)", "pid 7, memoryd add"} {
		l, err := TryLock(dir, "x.lock", owner)
		if err != nil {
			t.Fatal(err)
		}
		_, err = TryLock(dir, "x.lock", "pid 8, other")
		if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "("+owner+";") {
			t.Errorf("refused while %q holds it: %v", owner, err)
		}
		l.Unlock()
	}
}
