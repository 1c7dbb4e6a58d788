package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallStrayCodexMarker: a half-deleted memoryd block in Codex's
// AGENTS.md is left alone by install (which says so), reported by doctor,
// and uninstall gives the file back byte for byte.
func TestInstallStrayCodexMarker(t *testing.T) {
	w := newWorld(t)
	codex := filepath.Join(w.home, ".codex")
	os.MkdirAll(codex, 0o755)
	agents := filepath.Join(codex, "AGENTS.md")
	user := "# My rules\n\n<!-- memoryd:begin — the user's long-term memory index, kept up to date by memoryd; `memoryd uninstall` removes this block -->\nhalf a block\n\nMy own text after it.\n"
	w.write("AGENTS.md", user, codex)
	out, code := w.runCmd(nil, "install", "--memory-dir", w.mem, "--no-service", "--codex")
	if code != 0 || !strings.Contains(out, "left alone: line 3") {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(agents)
	if !strings.HasPrefix(string(data), user+"\n<!-- memoryd:begin") {
		t.Fatalf("AGENTS.md:\n%s", data)
	}
	out, _ = w.runCmd(nil, "doctor")
	if !strings.Contains(out, "PROBLEM  codex AGENTS.md: "+agents+": line 3 looks like a memoryd marker") {
		t.Errorf("doctor:\n%s", out)
	}
	if out, code := w.runCmd(nil, "uninstall", "--memory-dir", w.mem); code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(agents); string(data) != user {
		t.Fatalf("after uninstall:\n%q\nwant:\n%q", data, user)
	}
}

// TestInstallApostropheHome: with a home folder like /tmp/x/o'brien,
// install writes one hook of each kind however often it runs, doctor finds
// and runs them, and uninstall removes them.
func TestInstallApostropheHome(t *testing.T) {
	w := newWorld(t)
	home := filepath.Join(w.home, "x", "o'brien")
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	for i, kv := range w.env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "XDG_") {
			w.env[i] = k + "=" + home + strings.TrimPrefix(v, w.home)
		}
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	user := "{\n  \"model\": \"opus\"\n}\n"
	w.write("settings.json", user, filepath.Dir(settings))
	for range 2 {
		if out, code := w.runCmd(nil, "install", "--memory-dir", w.mem, "--no-service", "--claude", "--codex"); code != 0 {
			t.Fatalf("install: exit %d\n%s", code, out)
		}
	}
	data, _ := os.ReadFile(settings)
	if strings.Count(string(data), "context --config") != 1 || strings.Count(string(data), "recall --config") != 1 ||
		!strings.Contains(string(data), `o'\\''brien`) {
		t.Fatalf("settings.json:\n%s", data)
	}
	out, _ := w.runCmd(nil, "doctor")
	for _, want := range []string{"ok       claude code", "ok       claude SessionStart hook", "ok       claude UserPromptSubmit hook",
		"ok       codex SessionStart hook", "ok       codex UserPromptSubmit hook"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if out, code := w.runCmd(nil, "uninstall", "--memory-dir", w.mem); code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(settings); string(data) != user {
		t.Fatalf("after uninstall:\n%q", data)
	}
	for _, f := range []string{filepath.Join(home, ".claude.json"), filepath.Join(home, ".codex", "hooks.json"), filepath.Join(home, ".codex", "config.toml")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s left behind", f)
		}
	}
}
