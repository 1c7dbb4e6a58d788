package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadLayers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	yaml := "memory_dir: /notes/memory\ngit:\n  commit_debounce: 5s\n  author: A <a@example.com>\ncompact:\n  churn: 3\n  interval: 3600000\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, true, env(map[string]string{
		"MEMORY_COMPACT_CHURN":   "5",
		"MEMORY_EXTRACT_ENABLED": "0",
		"MEMORY_LLM_PROVIDER":    "openai",
		"OPENAI_API_KEY":         "sk-from-env",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.MemoryDir != "/notes/memory" || c.Git.CommitDebounce.D() != 5*time.Second || c.Git.Author != "A <a@example.com>" {
		t.Errorf("file values not applied: %+v", c)
	}
	if c.Compact.Churn != 5 {
		t.Errorf("env should override file: churn %d", c.Compact.Churn)
	}
	if c.Compact.Interval.D() != time.Hour {
		t.Errorf("interval in ms: got %s", c.Compact.Interval)
	}
	if c.Extract.Enabled {
		t.Error("MEMORY_EXTRACT_ENABLED=0 ignored")
	}
	if c.LLM.APIKey != "sk-from-env" {
		t.Error("OPENAI_API_KEY not used for the openai provider")
	}
	if c.Compact.Model != c.Extract.Model {
		t.Errorf("compact model defaults to the extract model: %q", c.Compact.Model)
	}
}

func TestLoadMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	if _, err := Load(missing, false, env(nil)); err != nil {
		t.Fatalf("optional missing file: %v", err)
	}
	if _, err := Load(missing, true, env(nil)); err == nil {
		t.Fatal("required missing file: no error")
	}
}

func TestErrorsNameTheKey(t *testing.T) {
	cases := []struct {
		name, yaml string
		env        map[string]string
		want       string
	}{
		{"unknown key", "memory_dir: /m\ngit:\n  comit_debounce: 2s\n", nil, "comit_debounce"},
		{"bad duration", "memory_dir: /m\ncompact:\n  interval: soon\n", nil, `"soon"`},
		{"bad provider", "memory_dir: /m\nllm:\n  provider: gpt\n", nil, "llm.provider"},
		{"negative churn", "memory_dir: /m\ncompact:\n  churn: 0\n", nil, "compact.churn"},
		{"missing dir", "", nil, "memory_dir"},
		{"bad env ms", "memory_dir: /m\n", map[string]string{"MEMORY_COMPACT_POLL_MS": "10s"}, "MEMORY_COMPACT_POLL_MS"},
		{"bad env bool", "memory_dir: /m\n", map[string]string{"MEMORY_COMPACT_ENABLED": "maybe"}, "MEMORY_COMPACT_ENABLED"},
		{"bad author", "memory_dir: /m\ngit:\n  author: nobody\n", nil, "git.author"},
		{"zero sync interval", "memory_dir: /m\nsync:\n  interval: 0\n", nil, "sync.interval"},
		{"bad sync remote", "memory_dir: /m\nsync:\n  remote: --upload-pack=x\n", nil, "sync.remote"},
		{"bad sync env", "memory_dir: /m\n", map[string]string{"MEMORY_SYNC_INTERVAL_MS": "5m"}, "MEMORY_SYNC_INTERVAL_MS"},
		{"max wait below debounce", "memory_dir: /m\ngit:\n  commit_debounce: 10s\n  commit_max_wait: 1s\n", nil, "git.commit_max_wait"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			os.WriteFile(path, []byte(tc.yaml), 0o600)
			c, err := Load(path, true, env(tc.env))
			if err == nil {
				err = c.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestPollClamped(t *testing.T) {
	c := Default()
	c.MemoryDir = "/m"
	c.Compact.Poll = Duration(5 * time.Second)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Compact.Poll.D() != MinPoll {
		t.Fatalf("poll %s, want clamped to %s", c.Compact.Poll, MinPoll)
	}
}

func TestSyncKeys(t *testing.T) {
	c, err := Load("", false, env(map[string]string{
		"MEMORY_DIR": "/m", "MEMORY_SYNC_ENABLED": "yes", "MEMORY_SYNC_REMOTE": "backup", "MEMORY_SYNC_INTERVAL_MS": "1500",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if !c.Sync.Enabled || c.Sync.Remote != "backup" || c.Sync.Interval.D() != 1500*time.Millisecond {
		t.Fatalf("sync from env: %+v", c.Sync)
	}
	if d := Default(); d.Sync.Enabled || d.Sync.Remote != "" || d.Sync.Interval.D() != 5*time.Minute {
		t.Fatalf("sync defaults: %+v", d.Sync)
	}
}

// TestEmbed checks the embeddings keys: off by default, set by the
// MEMORY_EMBED_* variables, and a base URL needing a model and a URL.
func TestEmbed(t *testing.T) {
	c := Default()
	if c.Embed.BaseURL != "" || c.Embed.Timeout.D() != 300*time.Millisecond {
		t.Fatalf("default embed: %+v", c.Embed)
	}
	vars := map[string]string{"MEMORY_DIR": "/m", "MEMORY_EMBED_BASE_URL": "http://127.0.0.1:11434/v1",
		"MEMORY_EMBED_MODEL": "nomic-embed-text", "MEMORY_EMBED_API_KEY": "k", "MEMORY_EMBED_TIMEOUT_MS": "250",
		"MEMORY_EMBED_FUSION": "rrf"}
	c, err := Load("", false, func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Embed{BaseURL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text", APIKey: "k", Timeout: Duration(250 * time.Millisecond), Fusion: "rrf"}
	if c.Embed != want {
		t.Errorf("embed: %+v, want %+v", c.Embed, want)
	}
	vars["MEMORY_EMBED_MODEL"], vars["MEMORY_EMBED_BASE_URL"], vars["MEMORY_EMBED_FUSION"] = "", "localhost:11434", "mean"
	c, _ = Load("", false, func(k string) string { return vars[k] })
	err = c.Validate()
	for _, key := range []string{"embed.base_url", "embed.model", "embed.fusion"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("no error about %s: %v", key, err)
		}
	}
}
