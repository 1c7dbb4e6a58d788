package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/thesaurus"
)

// TestConfigSaysWhatIsInEffect: with llm.provider not set and opencode on
// PATH, `memoryd config` says that opencode is the provider and why, and
// that the jobs use OpenCode's own model, not the built-in default of
// another provider, and which WordNet search uses; with opencode gone,
// that the provider is none.
func TestConfigSaysWhatIsInEffect(t *testing.T) {
	w := newWorld(t)
	bin, _ := fakeListingOpenCode(t, w)
	env := []string{"MEMORY_LLM_PROVIDER=", "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	out, _, code := w.runCmd2(env, "config")
	wordNet := "→ off: search.thesaurus is not set and WordNet is not in"
	if th := thesaurus.Find(); th != nil {
		wordNet = "→ " + th.Dir() + ": search.thesaurus is not set: WordNet is there"
		th.Close()
	}
	for _, want := range []string{"→ opencode: llm.provider is not set and opencode is on PATH", "→ acme/small: extract.model is not set", wordNet} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("config (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	stdout, _, _ := w.runCmd2(env, "config", "--json")
	var r struct {
		Settings []struct {
			Key       string
			Effective any
			Because   string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err, stdout)
	}
	got := map[string]any{}
	for _, s := range r.Settings {
		if s.Effective != nil {
			got[s.Key] = s.Effective
		}
	}
	if got["llm.provider"] != "opencode" || got["extract.model"] != "acme/small" || got["compact.model"] != "acme/small" {
		t.Errorf("config --json effective values: %v\n%s", got, stdout)
	}
	out, _, _ = w.runCmd2([]string{"MEMORY_LLM_PROVIDER=", "PATH=" + onlyGit(t)}, "config")
	if !strings.Contains(out, "→ none: llm.provider is not set and opencode is not on PATH") || strings.Contains(out, "acme/small") {
		t.Errorf("config without opencode:\n%s", out)
	}
}
