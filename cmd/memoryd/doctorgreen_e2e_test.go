package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// fakeListingOpenCode puts a fake `opencode` in a folder of its own that answers
// `debug config` (model acme/small) and `models` at once, and counts the
// `models` calls in a file; it returns the folder and the count's file.
func fakeListingOpenCode(t *testing.T, w *world) (dir, calls string) {
	t.Helper()
	dir = filepath.Join(w.home, "fakebin")
	os.MkdirAll(dir, 0o755)
	calls = filepath.Join(w.home, "opencode-models-calls")
	script := "#!/bin/sh\ncase \"$1\" in\n" +
		"debug) echo '{\"small_model\": \"acme/small\"}' ;;\n" +
		"models) echo x >> " + calls + "; echo acme/small; echo acme/big ;;\n" +
		"*) exit 1 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "opencode"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, calls
}

// TestDoctorGreen: in a container (no service manager; the daemon started
// by hand), doctor is green — exit 0, no PROBLEM line — for a user who
// never wired OpenCode though it is on PATH, one with no provider at all,
// and one of an OpenAI-compatible server. What they did not set up is
// "not used", never a problem; --json says the same.
func TestDoctorGreen(t *testing.T) {
	srv := llmtest.NewServer(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	cases := []struct {
		name string
		env  func(w *world, bin string) []string
		want []string
	}{
		{"opencode on PATH, not wired", func(w *world, bin string) []string {
			return []string{"MEMORY_LLM_PROVIDER="}
		}, []string{"not used opencode instructions", "ok       llm provider: opencode", "ok       llm model: acme/small", "not used service"}},
		{"no provider", func(w *world, bin string) []string {
			os.Remove(filepath.Join(bin, "opencode"))
			return []string{"MEMORY_LLM_PROVIDER=none"}
		}, []string{"not used llm provider", "not used service"}},
		{"openai-compatible server", func(w *world, bin string) []string {
			return []string{"MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL=" + srv.OpenAIURL(), "MEMORY_EXTRACT_MODEL=openai/" + llmtest.ModelID}
		}, []string{"ok       llm provider: openai", "ok       llm model: openai/" + llmtest.ModelID}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			bin, _ := fakeListingOpenCode(t, w)
			os.Symlink(must(t, "git"), filepath.Join(bin, "git"))
			env := append([]string{"PATH=" + bin, "XDG_RUNTIME_DIR=" + t.TempDir()}, tc.env(w, bin)...)
			w.env = append(w.env, env...)
			p := w.startDaemon()
			defer p.stop(t)
			out, code := w.runCmd(nil, "doctor")
			if code != 0 || strings.Contains(out, "PROBLEM") {
				t.Fatalf("doctor is not green (exit %d):\n%s", code, out)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("doctor output lacks %q:\n%s", want, out)
				}
			}
			stdout, _, code := w.runCmd2(nil, "doctor", "--json")
			var r struct {
				OK     bool `json:"ok"`
				Checks []struct{ Check, State string }
			}
			if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 || !r.OK || len(r.Checks) == 0 {
				t.Fatalf("doctor --json: exit %d, %v\n%s", code, err, stdout)
			}
		})
	}
}

// TestDoctorModelCheckIsCached: the model check asks the provider once a
// day; a second doctor says how old its answer is, --fresh asks again.
func TestDoctorModelCheckIsCached(t *testing.T) {
	w := newWorld(t)
	bin, calls := fakeListingOpenCode(t, w)
	w.env = append(w.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "MEMORY_LLM_PROVIDER=opencode")
	count := func() int { data, _ := os.ReadFile(calls); return strings.Count(string(data), "x") }
	out, _ := w.runCmd(nil, "doctor")
	if !strings.Contains(out, "ok       llm model: acme/small (checked now)") || count() != 1 {
		t.Fatalf("first doctor: %d model lists asked\n%s", count(), out)
	}
	out, _ = w.runCmd(nil, "doctor")
	if !strings.Contains(out, "ok       llm model: acme/small (checked ") || !strings.Contains(out, " ago; memoryd doctor --fresh checks again)") || count() != 1 {
		t.Fatalf("second doctor: %d model lists asked\n%s", count(), out)
	}
	out, _ = w.runCmd(nil, "doctor", "--fresh")
	if !strings.Contains(out, "(checked now)") || count() != 2 {
		t.Fatalf("doctor --fresh: %d model lists asked\n%s", count(), out)
	}
}

func must(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDoctorModelCheckFollowsConfig: the model check is kept for what it
// checked. With OpenCode on PATH and no model set anywhere, doctor says
// once that extraction and compaction are off until one is set — not
// used, not a problem; the user then sets a model in OpenCode's config
// and the next doctor checks again at once and is green; a model set in
// memoryd's config is checked again too.
func TestDoctorModelCheckFollowsConfig(t *testing.T) {
	w := newWorld(t)
	bin := filepath.Join(w.home, "fakebin")
	os.MkdirAll(bin, 0o755)
	calls := filepath.Join(w.home, "opencode-models-calls")
	ocConfig := filepath.Join(w.home, ".config", "opencode", "opencode.json")
	// A stand-in for OpenCode that reads its real config file.
	script := "#!/bin/sh\ncase \"$1\" in\n" +
		"debug) cat " + ocConfig + " 2>/dev/null || echo '{}' ;;\n" +
		"models) echo x >> " + calls + "; echo acme/small; echo acme/big ;;\n" +
		"*) exit 1 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "opencode"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "MEMORY_LLM_PROVIDER=")
	count := func() int { data, _ := os.ReadFile(calls); return strings.Count(string(data), "x") }

	out, code := w.runCmd(nil, "doctor")
	if !strings.Contains(out, "not used llm model: no model configured: extraction and compaction are off until ") ||
		strings.Contains(out, "PROBLEM  llm model") || strings.Count(out, "llm model") != 1 {
		t.Fatalf("doctor with no model anywhere (exit %d):\n%s", code, out)
	}
	os.MkdirAll(filepath.Dir(ocConfig), 0o755)
	os.WriteFile(ocConfig, []byte(`{"model": "acme/big"}`), 0o644)
	out, _ = w.runCmd(nil, "doctor")
	if !strings.Contains(out, "ok       llm model: acme/big (checked now)") || count() != 2 {
		t.Fatalf("doctor after a model was set in OpenCode: %d model lists asked\n%s", count(), out)
	}
	out, _ = w.runCmd(nil, "doctor")
	if !strings.Contains(out, "ok       llm model: acme/big (checked ") || !strings.Contains(out, " ago;") || count() != 2 {
		t.Fatalf("doctor with nothing changed asks again: %d model lists asked\n%s", count(), out)
	}
	out, _ = w.runCmd([]string{"MEMORY_EXTRACT_MODEL=acme/gone"}, "doctor")
	if !strings.Contains(out, "PROBLEM  llm model: opencode does not offer acme/gone") || !strings.Contains(out, "checked now") || count() != 3 {
		t.Fatalf("doctor after extract.model changed: %d model lists asked\n%s", count(), out)
	}
}
