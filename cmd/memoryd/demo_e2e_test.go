package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/needtool"
)

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDemoTryLines runs scripts/demo (with the test's binary) and runs every
// memoryd command it prints, as printed, in a shell: status must find the
// running demo daemon, logs its log, and doctor must check the demo folder.
func TestDemoTryLines(t *testing.T) {
	bash := needtool.Path(t, "bash")
	w := newWorld(t)
	env := slices.DeleteFunc(slices.Clone(w.env), func(kv string) bool { return strings.HasPrefix(kv, "MEMORY_DIR=") })
	env = append(env, "MEMORYD_DEMO_BIN="+binPath)
	demo := filepath.Join(w.home, "demo")

	var out lockedBuffer
	cmd := exec.Command(bash, filepath.Join("..", "..", "scripts", "demo"), demo)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) // the script ends in exec memoryd run
		select {
		case <-done:
		case <-time.After(patience):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("scripts/demo output:\n%s", out.String())
		}
	})
	mem := filepath.Join(demo, "notes", "memory")
	waitFor(t, "the demo daemon's first commit", func() bool {
		return strings.Contains(out.String(), "committed ")
	})

	wrapper := filepath.Join(demo, "memoryd")
	var tries []string
	for _, line := range strings.Split(out.String(), "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, wrapper+" ") {
			tries = append(tries, l)
		}
	}
	if len(tries) != 3 {
		t.Fatalf("want status, doctor and logs try-lines, got %q", tries)
	}
	for _, line := range tries {
		sub := strings.Fields(line)[1]
		c := exec.Command(bash, "-c", line)
		c.Env = env
		got, err := c.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		switch sub {
		case "status":
			if code != 0 || !strings.Contains(string(got), "memory folder  "+mem) || !strings.Contains(string(got), "running (pid") {
				t.Errorf("%s: exit %d\n%s", line, code, got)
			}
		case "doctor": // the demo has no service and no LLM: problems, exit 1
			if code > 1 || !strings.Contains(string(got), "ok       memory folder: "+mem) || !strings.Contains(string(got), "ok       git repository: ") {
				t.Errorf("%s: exit %d\n%s", line, code, got)
			}
		case "logs":
			if code != 0 || !strings.Contains(string(got), "memoryd started") {
				t.Errorf("%s: exit %d\n%s", line, code, got)
			}
		default:
			t.Errorf("unexpected try-line %q", line)
		}
	}
	if _, err := os.Stat(filepath.Join(mem, "MEMORY.md")); err != nil {
		t.Error(err)
	}
}
