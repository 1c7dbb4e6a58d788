//go:build unix

package atomicfile

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A process that stops between creating its temporary file and renaming it,
// stands in for a Write killed half way.
func TestMain(m *testing.M) {
	if dir := os.Getenv("ATOMICFILE_HOLD_TEMP_IN"); dir != "" {
		f, err := createTemp(dir)
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(filepath.Base(f.Name()) + "\n")
		// Until killed. Not select {}: without -race the runtime sees every
		// goroutine blocked for ever and exits, dropping the lock.
		time.Sleep(time.Hour)
		runtime.KeepAlive(f)
	}
	os.Exit(m.Run())
}

func TestSweepRemovesOnlyWhatADeadProcessLeft(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_HOLD_TEMP_IN="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	held, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	held = strings.TrimSpace(held)

	// Left by a process that died before it took the lock.
	unlocked, err := os.CreateTemp(dir, TempPrefix+"*")
	if err != nil {
		t.Fatal(err)
	}
	unlocked.Close()
	// Not Write's: a fact, a folder and a link with the prefix.
	for _, name := range []string{"fact.md"} {
		os.WriteFile(filepath.Join(dir, name), []byte("keep"), 0o644)
	}
	os.Mkdir(filepath.Join(dir, TempPrefix+"dir"), 0o755)
	os.Symlink("fact.md", filepath.Join(dir, TempPrefix+"link"))

	removed, err := Sweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Base(unlocked.Name())}; !slices.Equal(removed, want) {
		t.Fatalf("first sweep removed %q, want %q", removed, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, held)); err != nil {
		t.Fatalf("a temporary file being written was removed: %v", err)
	}

	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	if removed, err = Sweep(dir); err != nil || !slices.Equal(removed, []string{held}) {
		t.Fatalf("after the writer died: removed %q (%v), want %q", removed, err, held)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{TempPrefix + "dir", TempPrefix + "link", "fact.md"}; !slices.Equal(left, want) {
		t.Fatalf("left %q, want %q", left, want)
	}
}

// A Sweep between a Write's creating its temporary file and locking it
// removes the file; Write makes another and succeeds.
func TestWriteSurvivesASweep(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				Sweep(dir)
			}
		}
	})
	var err error
	for i := 0; i < 500 && err == nil; i++ {
		_, err = Write(dir, "a.md", []byte{byte('a' + i%26)}, 0o644)
	}
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("write during sweeps: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left %v", entries)
	}
}
