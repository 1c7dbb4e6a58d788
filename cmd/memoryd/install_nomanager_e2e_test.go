package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstallWithoutServiceManager is WSL without systemd, on the built
// binary: systemctl is there but no user manager answers. Install must
// still create the folder, the config file, PROTOCOL.md and the OpenCode
// wiring, start the daemon as memoryd start does and exit 0; the first time
// it says how to turn systemd on and prints a run command that works as
// printed, a second install says it in one line and reports the daemon as
// running; --no-service exits 0; and once a manager answers, the install
// command it printed completes the service step.
func TestInstallWithoutServiceManager(t *testing.T) {
	w := newWorld(t)
	// Only the config file written by install may name the memory folder.
	w.env = slices.DeleteFunc(w.env, func(kv string) bool { return strings.HasPrefix(kv, "MEMORY_DIR=") })
	noSystemd := filepath.Join(w.home, "nosystemd")
	os.MkdirAll(noSystemd, 0o755)
	os.WriteFile(filepath.Join(noSystemd, "systemctl"), []byte("#!/bin/sh\n"+
		"echo 'System has not been booted with systemd as init system (PID 1). Can'\\''t operate.' >&2\n"+
		"echo 'Failed to connect to bus: Host is down' >&2\nexit 1\n"), 0o755)
	wsl := []string{"PATH=" + noSystemd + ":" + os.Getenv("PATH"), "WSL_DISTRO_NAME=Ubuntu"}

	mem := filepath.Join(w.notes, "agent-memory") // does not exist yet
	cfg := filepath.Join(w.home, ".config", "memoryd", "config.yaml")
	bin, err := filepath.EvalSymlinks(binPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.runCmd(wsl, "stop", "--config", cfg) })
	out, code := w.runCmd(wsl, "install", "--memory-dir", mem, "--opencode")
	if code != 0 {
		t.Fatalf("install without a service manager: exit %d, want 0\n%s", code, out)
	}
	assertSetUp(t, w, mem, cfg, out)
	runLine := bin + " run --config " + cfg
	for _, want := range []string{
		"not done  service",
		"Host is down",
		"/etc/wsl.conf", "[boot]", "systemd=true", "wsl --shutdown",
		bin + " install --config " + cfg,
		"\n    " + runLine + "\n",
		"tmux new-session -d -s memoryd '" + runLine + "'",
		"(nohup " + runLine + " >>",
		"memoryd started in the background for " + mem,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not running") {
		t.Errorf("install says the daemon it started is not running:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(w.home, ".config", "systemd", "user", "memoryd.service")); !os.IsNotExist(err) {
		t.Errorf("a unit was written without a manager: %v", err)
	}
	waitFor(t, "MEMORY.md from the daemon install started", func() bool {
		_, err := os.Stat(filepath.Join(mem, "MEMORY.md"))
		return err == nil
	})

	// Again: one line, not the explanation, and the daemon is running.
	out, code = w.runCmd(wsl, "install", "--memory-dir", mem, "--opencode")
	if code != 0 || !strings.Contains(out, "memoryd is already running for "+mem) || strings.Contains(out, "/etc/wsl.conf") ||
		!strings.Contains(out, "No per-user service manager here") {
		t.Errorf("second install without a manager: exit %d, want 0, one line and the daemon running\n%s", code, out)
	}
	if out, code := w.runCmd(wsl, "stop", "--config", cfg); code != 0 || !strings.Contains(out, "memoryd stopped") {
		t.Fatalf("stop: exit %d\n%s", code, out)
	}
	os.Remove(filepath.Join(mem, "MEMORY.md"))

	// The run command, as printed, runs the daemon on that folder.
	p := w.start(wsl, "run", "--config", cfg)
	waitFor(t, "MEMORY.md from the printed run command", func() bool {
		_, err := os.Stat(filepath.Join(mem, "MEMORY.md"))
		return err == nil
	})
	p.stop(t)

	out, code = w.runCmd(wsl, "install", "--memory-dir", mem, "--opencode", "--no-service")
	if code != 0 || !strings.Contains(out, "skipped   service") || !strings.Contains(out, runLine) {
		t.Fatalf("install --no-service: exit %d\n%s", code, out)
	}
	assertSetUp(t, w, mem, cfg, out)

	// systemd is turned on: the printed install command adds the service.
	manager := fakeServiceTools(t, w, false, "yes")
	out, code = w.runCmd(manager, "install", "--config", cfg)
	if code != 0 || !strings.Contains(out, "enabled and started") {
		t.Fatalf("install once a manager answers: exit %d\n%s", code, out)
	}
	unit, err := os.ReadFile(filepath.Join(w.home, ".config", "systemd", "user", "memoryd.service"))
	if err != nil || !strings.Contains(string(unit), "run --config "+cfg) {
		t.Errorf("unit: %v\n%s", err, unit)
	}
}

// assertSetUp checks what install does with or without a service.
func assertSetUp(t *testing.T, w *world, mem, cfg, out string) {
	t.Helper()
	if data, err := os.ReadFile(cfg); err != nil || !strings.Contains(string(data), "memory_dir: "+mem+"\n") {
		t.Errorf("config file %s: %v\n%s\ninstall said:\n%s", cfg, err, data, out)
	}
	if _, err := os.Stat(filepath.Join(mem, "PROTOCOL.md")); err != nil {
		t.Errorf("PROTOCOL.md: %v", err)
	}
	oc, err := os.ReadFile(filepath.Join(w.home, ".config", "opencode", "opencode.json"))
	if err != nil || !strings.Contains(string(oc), filepath.Join(mem, "MEMORY.md")) || !strings.Contains(string(oc), filepath.Join(mem, "PROTOCOL.md")) {
		t.Errorf("OpenCode not wired: %v\n%s", err, oc)
	}
}
