package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/memoryd/memoryd/internal/state"
)

// TestLifecycleWithoutServiceManager is a container: systemctl is there
// but no user bus answers, and no service is installed. start runs the
// daemon in the background (it commits), a second start leaves it be,
// restart replaces it, stop stops it, status finds it, and uninstall
// stops one that is still running.
func TestLifecycleWithoutServiceManager(t *testing.T) {
	w := newWorld(t)
	noBus := filepath.Join(w.home, "nobus")
	os.MkdirAll(noBus, 0o755)
	os.WriteFile(filepath.Join(noBus, "systemctl"), []byte("#!/bin/sh\n"+
		"echo 'Failed to connect to bus: No medium found' >&2\nexit 1\n"), 0o755)
	env := []string{"PATH=" + noBus + ":" + os.Getenv("PATH"), "DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR="}
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		t.Fatal(err)
	}
	running := func() int { return state.InstancePID(sd, w.mem) }
	t.Cleanup(func() {
		if pid := running(); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	out, code := w.runCmd(env, "start")
	if code != 0 || !strings.Contains(out, "memoryd started in the background") {
		t.Fatalf("start: exit %d\n%s", code, out)
	}
	first := running()
	if first <= 0 {
		t.Fatalf("start returned, but no daemon holds the folder:\n%s", out)
	}
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Uses vim for everything."))
	waitFor(t, "the background daemon to commit", func() bool { return w.show("memory/user-editor.md") != "" })
	// Its log goes to the rotated log file, not to the start-up file that
	// nothing rotates.
	if errs, _ := os.ReadFile(filepath.Join(sd, "start.err")); strings.Contains(string(errs), "committed") {
		t.Errorf("the background daemon logs to start.err:\n%s", errs)
	}
	if out, _ := w.runCmd(env, "logs", "-n", "200"); !strings.Contains(out, "committed") {
		t.Errorf("memoryd logs does not show the background daemon's log:\n%s", out)
	}
	out, code = w.runCmd(env, "status")
	if code != 0 || !strings.Contains(out, "running") {
		t.Errorf("status: exit %d\n%s", code, out)
	}

	out, code = w.runCmd(env, "start")
	if code != 0 || !strings.Contains(out, "already running") || running() != first {
		t.Errorf("second start: exit %d, pid %d (was %d)\n%s", code, running(), first, out)
	}

	out, code = w.runCmd(env, "restart")
	second := running()
	if code != 0 || second <= 0 || second == first {
		t.Fatalf("restart: exit %d, pid %d (was %d)\n%s", code, second, first, out)
	}

	out, code = w.runCmd(env, "stop")
	if code != 0 || !strings.Contains(out, "memoryd stopped") || running() != 0 {
		t.Fatalf("stop: exit %d, pid %d\n%s", code, running(), out)
	}
	if _, code := w.runCmd(env, "status"); code != 3 {
		t.Errorf("status after stop: exit %d, want 3 (not running)", code)
	}
	out, code = w.runCmd(env, "stop")
	if code != 0 || !strings.Contains(out, "not running") {
		t.Errorf("stop of a stopped daemon: exit %d\n%s", code, out)
	}

	// uninstall leaves nothing of memoryd running.
	if out, code := w.runCmd(env, "start"); code != 0 {
		t.Fatalf("start: exit %d\n%s", code, out)
	}
	out, _ = w.runCmd(env, "uninstall")
	if running() != 0 || !strings.Contains(out, "stopped   memoryd run") {
		t.Errorf("uninstall left the daemon running (pid %d)\n%s", running(), out)
	}
}
