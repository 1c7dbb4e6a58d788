package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
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

// TestInstallOpenCodeSendsMemoryToTheModel installs with --opencode into a
// home whose OpenCode talks to the fake LLM server, then runs the real
// `opencode run`: the system prompt the fake receives must carry MEMORY.md's
// entries and PROTOCOL.md's rules.
func TestInstallOpenCodeSendsMemoryToTheModel(t *testing.T) {
	needtool.Path(t, "opencode")
	w := newWorld(t)
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text("noted") })
	llmtest.WriteOpenCodeConfig(t, w.home, srv)
	w.write("user-coffee.md", memoryFile("user", "coffee", "Drinks oat-milk flat whites, never sugar", "Oat milk."))
	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		t.Fatalf("rebuild: %s", out)
	}
	if out, code := w.runCmd(fakeServiceTools(t, w, true, "yes"), "install", "--memory-dir", w.mem, "--opencode"); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*patience)
	defer cancel()
	cmd := exec.CommandContext(ctx, "opencode", "run", "what do I drink?")
	cmd.Env = llmtest.OpenCodeEnv(w.home)
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("opencode run: %v\n%s", err, out)
	}
	prompts := srv.Prompts()
	if len(prompts) == 0 {
		t.Fatal("the fake received no prompt")
	}
	system := prompts[0].System
	for _, want := range []string{
		"- [Coffee](user-coffee.md) — Drinks oat-milk flat whites, never sugar", // MEMORY.md
		"metadata:", // PROTOCOL.md's file format
	} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
}
