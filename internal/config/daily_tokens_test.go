package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDailyTokens: llm.daily_tokens defaults to a million, is set from the
// file and MEMORY_LLM_DAILY_TOKENS (which wins), takes 0 for no limit and
// refuses a negative number naming the key.
func TestDailyTokens(t *testing.T) {
	if d := Default(); d.LLM.DailyTokens != 1_000_000 {
		t.Errorf("default %d", d.LLM.DailyTokens)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte("memory_dir: /m\nllm:\n  daily_tokens: 250000\n"), 0o600)
	for _, c := range []struct {
		env  map[string]string
		want int
		err  string
	}{
		{nil, 250_000, ""},
		{map[string]string{"MEMORY_LLM_DAILY_TOKENS": "0"}, 0, ""},
		{map[string]string{"MEMORY_LLM_DAILY_TOKENS": "-1"}, 0, "MEMORY_LLM_DAILY_TOKENS: llm.daily_tokens: must be at least 0 (0 means no limit) (got -1)"},
		{map[string]string{"MEMORY_LLM_DAILY_TOKENS": "lots"}, 0, `llm.daily_tokens: must be a whole number (got "lots")`},
	} {
		cfg, err := Load(path, true, env(c.env))
		if err == nil {
			err = cfg.Validate()
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.env, err, c.err)
			}
			continue
		}
		if err != nil || cfg.LLM.DailyTokens != c.want {
			t.Errorf("%v: %d, %v; want %d", c.env, cfg.LLM.DailyTokens, err, c.want)
		}
		if o := cfg.Origin("llm.daily_tokens"); c.env != nil && o.Source != FromEnv {
			t.Errorf("origin %+v", o)
		}
	}
}
