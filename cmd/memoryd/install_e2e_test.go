package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallCommandIdempotentAndUninstall(t *testing.T) {
	w := newWorld(t)
	extra := fakeServiceTools(t, w, true, "yes")
	mem := filepath.Join(w.home, "notes", "memory")
	w.write("user-keep.md", memoryFile("user", "keep", "Keep me", "x"))

	out, code := w.runCmd(extra, "install", "--memory-dir", mem, "--opencode")
	if code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	unit := filepath.Join(w.home, ".config", "systemd", "user", "memoryd.service")
	data, err := os.ReadFile(unit)
	if err != nil {
		t.Fatalf("no unit written: %v\n%s", err, out)
	}
	if !strings.Contains(string(data), binPath) || !strings.Contains(string(data), "run --config") {
		t.Errorf("unit does not run this binary with --config:\n%s", data)
	}
	for _, want := range []string{"journalctl --user -u memoryd", "loginctl enable-linger"} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(mem, "PROTOCOL.md")); err != nil {
		t.Error("PROTOCOL.md not written")
	}
	oc, _ := os.ReadFile(filepath.Join(w.home, ".config", "opencode", "opencode.json"))
	if !strings.Contains(string(oc), filepath.Join(mem, "MEMORY.md")) {
		t.Errorf("OpenCode not wired:\n%s", oc)
	}

	out, code = w.runCmd(extra, "install", "--memory-dir", mem, "--opencode")
	if code != 0 || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second install: exit %d\n%s", code, out)
	}

	out, code = w.runCmd(extra, "uninstall", "--memory-dir", mem)
	if code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Error("unit still present after uninstall")
	}
	oc, _ = os.ReadFile(filepath.Join(w.home, ".config", "opencode", "opencode.json"))
	if strings.Contains(string(oc), "MEMORY.md") {
		t.Errorf("OpenCode entries left after uninstall:\n%s", oc)
	}
	if _, err := os.Stat(filepath.Join(mem, "user-keep.md")); err != nil {
		t.Error("uninstall removed a memory file")
	}
}
