package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/install"
)

// agentHome is a home folder and memoryd's files, to wire agents into by
// hand with install's own renderers.
type agentHome struct {
	t                    *testing.T
	home, mem, bin, conf string
	opts                 install.Options
}

func newAgentHome(t *testing.T) *agentHome {
	root := t.TempDir()
	h := &agentHome{t: t, home: filepath.Join(root, "home"), mem: filepath.Join(root, "memory"),
		bin: filepath.Join(root, "bin", "memoryd"), conf: filepath.Join(root, "config.yaml")}
	for _, d := range []string{h.home, h.mem, filepath.Dir(h.bin)} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(h.bin, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(h.conf, []byte("memory_dir: "+h.mem+"\n"), 0o600)
	os.WriteFile(filepath.Join(h.mem, "MEMORY.md"), []byte("# Memory\n"), 0o644)
	h.opts = install.Options{Home: h.home, Binary: h.bin, ConfigPath: h.conf, GOOS: "linux", Path: root}
	return h
}

func (h *agentHome) edit(path string, f func([]byte) []byte) {
	h.t.Helper()
	data, _ := os.ReadFile(path)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, f(data), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// wire writes every agent's wiring as install does.
func (h *agentHome) wire() {
	cmd := []string{h.bin, "mcp", "--config", h.conf}
	oc := install.OpenCodeDir(h.home, "")
	h.edit(filepath.Join(oc, "opencode.json"), func(b []byte) []byte { return must(install.AddOpenCodeMCP(nil, cmd)) })
	h.edit(install.OpenCodePluginFile(oc), func([]byte) []byte { return install.RenderOpenCodePlugin(h.bin, h.conf) })
	settings, servers := install.ClaudeFiles(h.home, "")
	h.edit(servers, func(b []byte) []byte { return must(install.AddClaudeMCP(b, cmd)) })
	h.edit(settings, func(b []byte) []byte { return must(install.AddClaudeSettings(b, h.bin+" context --config "+h.conf)) })
	codex := install.CodexHome(h.home, "")
	h.edit(filepath.Join(codex, "AGENTS.md"), func(b []byte) []byte { return install.AddCodexIndex(b, []byte("# Memory\n")) })
	h.edit(filepath.Join(codex, "config.toml"), func(b []byte) []byte { return must(install.AddCodexMCP(b, cmd)) })
}

func (h *agentHome) run() []Finding {
	cfg := config.Default()
	cfg.Extract.Enabled = false
	all := Run(context.Background(), Options{Dir: h.mem, Config: cfg, Provider: "none", Install: h.opts, RepoErr: gitstore.ErrNoRepo})
	var out []Finding
	for _, f := range all {
		switch f.Check {
		case "opencode mcp", "opencode plugin", "claude code", "codex":
			out = append(out, f)
		}
	}
	return out
}

func TestAgentsNotWired(t *testing.T) {
	if got := newAgentHome(t).run(); len(got) != 0 {
		t.Fatalf("findings for agents never wired: %+v", got)
	}
}

func TestAgentsWired(t *testing.T) {
	h := newAgentHome(t)
	h.wire()
	got := h.run()
	if len(got) != 4 || Problems(got) != 0 {
		t.Fatalf("findings: %+v", got)
	}
}

func TestAgentsBroken(t *testing.T) {
	h := newAgentHome(t)
	h.wire()
	settings, _ := install.ClaudeFiles(h.home, "")
	h.edit(settings, func([]byte) []byte { return []byte(`{"permissions": {"allow": ["mcp__memoryd__memory_search"]}}`) })
	h.edit(filepath.Join(h.mem, "MEMORY.md"), func([]byte) []byte { return []byte("# Memory\n\n- [New](user-new.md) — new\n") })
	got := h.run()
	want := map[string]string{
		"claude code": "only partly wired: missing the SessionStart hook",
		"codex":       "older than MEMORY.md",
	}
	for _, f := range got {
		if w, ok := want[f.Check]; ok && (!strings.Contains(f.Problem, w) || !strings.Contains(f.Fix, "memoryd install --")) {
			t.Errorf("%s: %+v, want a problem with %q and an install fix", f.Check, f, w)
		}
	}
	if Problems(got) != 2 {
		t.Errorf("findings: %+v", got)
	}

	os.Remove(h.bin)
	for _, f := range h.run() {
		if f.Check != "codex" && (f.Problem == "" || !strings.Contains(f.Problem, "not an executable file")) {
			t.Errorf("with the binary gone, %s: %+v", f.Check, f)
		}
	}
}
