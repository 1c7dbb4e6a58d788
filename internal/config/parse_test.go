package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestFileErrorsInUsersWords checks that every problem in the file names
// file:line and the full key path, with a suggestion for unknown keys.
func TestFileErrorsInUsersWords(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // the error's lines, in order
	}{
		{"typo in a key", "memory_dir: /m\nextract:\n  enabled: true\n  modle: x\n",
			[]string{"config.yaml:4: extract.modle: unknown key (did you mean extract.model?)"}},
		{"typo with a missing letter", "git:\n  comit_debounce: 2s\n",
			[]string{"config.yaml:2: git.comit_debounce: unknown key (did you mean git.commit_debounce?)"}},
		{"key in the wrong section", "model: x\n",
			[]string{"config.yaml:1: model: unknown key (did you mean extract.model, compact.model or embed.model?)"}},
		{"typo in a section", "extrct:\n  model: x\n",
			[]string{"config.yaml:1: extrct: unknown key (did you mean extract?)"}},
		{"environment name as a key", "MEMORY_DIR: /m\n",
			[]string{"config.yaml:1: MEMORY_DIR: unknown key (did you mean memory_dir?)"}},
		{"nothing close", "extract:\n  colour: blue\n",
			[]string{"config.yaml:2: extract.colour: unknown key (known in extract: enabled, debounce, model, opencode_db, review, since, exclude)"}},
		{"number", "compact:\n  churn: lots\n",
			[]string{`config.yaml:2: compact.churn: must be a whole number (got "lots")`}},
		{"duration", "memory_dir: /m\ncompact:\n  interval: soon\n",
			[]string{`config.yaml:3: compact.interval: must be a duration such as 2s, 90m or 12h, or a whole number of milliseconds (got "soon")`}},
		{"bool word", "extract:\n  enabled: maybe\n",
			[]string{`config.yaml:2: extract.enabled: must be true/false, yes/no, on/off or 1/0 (got "maybe")`}},
		{"list for a value", "extract:\n  model: [a, b]\n",
			[]string{"config.yaml:2: extract.model: must be a single value, not a list"}},
		{"value for a section", "git: fast\n",
			[]string{`config.yaml:1: git: must be a section of keys such as git.commit_debounce, not the value "fast"`}},
		{"set twice", "compact:\n  churn: 3\n  churn: 4\n",
			[]string{"config.yaml:3: compact.churn: set twice (first on line 2)"}},
		{"no value", "compact:\n  churn:\n",
			[]string{"config.yaml:2: compact.churn: has no value (give one, or delete the line to keep the default)"}},
		{"all problems at once", "extract:\n  modle: x\ncompact:\n  churn: lots\n",
			[]string{
				"config.yaml:2: extract.modle: unknown key (did you mean extract.model?)",
				`config.yaml:4: compact.churn: must be a whole number (got "lots")`,
			}},
		{"syntax", "git:\n  author: a\n bad: [\n",
			[]string{"config.yaml:2: did not find expected key"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			err := Parse(strings.NewReader(tc.yaml), "config.yaml", &c)
			if err == nil {
				t.Fatal("no error")
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("error:\n%s\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestFileAcceptsEmptyAndCommentsOnly(t *testing.T) {
	for _, text := range []string{"", "# nothing yet\n", "git:\n"} {
		c := Default()
		if err := Parse(strings.NewReader(text), "config.yaml", &c); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// TestBoolWords checks that the file and the environment accept the same
// words for booleans, in any case.
func TestBoolWords(t *testing.T) {
	words := map[string]bool{"1": true, "0": false, "true": true, "False": false, "YES": true, "no": false, "On": true, "off": false}
	for word, want := range words {
		c := Default()
		c.Extract.Enabled = !want
		if err := Parse(strings.NewReader("extract:\n  enabled: "+word+"\n"), "config.yaml", &c); err != nil || c.Extract.Enabled != want {
			t.Errorf("file %q: enabled=%v, err %v", word, c.Extract.Enabled, err)
		}
		c = Default()
		c.Compact.Enabled = !want
		if err := c.ApplyEnv(env(map[string]string{"MEMORY_COMPACT_ENABLED": word})); err != nil || c.Compact.Enabled != want {
			t.Errorf("env %q: enabled=%v, err %v", word, c.Compact.Enabled, err)
		}
	}
	c := Default()
	err := c.ApplyEnv(env(map[string]string{"MEMORY_COMPACT_ENABLED": "maybe"}))
	if want := `env MEMORY_COMPACT_ENABLED: compact.enabled: must be true/false, yes/no, on/off or 1/0 (got "maybe")`; err == nil || err.Error() != want {
		t.Errorf("bad env bool: %v\nwant %s", err, want)
	}
}

// TestValidateNamesWhereTheValueCameFrom checks that a bad value is
// reported at its file line, or as its variable or flag, never as the file
// when the file did not set it.
func TestValidateNamesWhereTheValueCameFrom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte("memory_dir: /m\ncompact:\n  churn: 0\n  budget: 10\n"), 0o600)
	cases := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"from the file", nil, []string{
			path + ":3: compact.churn: must be at least 1 (got 0)",
			path + ":4: compact.budget: must be at least 1000 characters (got 10)",
		}},
		{"from a variable", map[string]string{"MEMORY_COMPACT_CHURN": "0", "MEMORY_LLM_PROVIDER": "gpt"}, []string{
			"env MEMORY_COMPACT_CHURN: compact.churn: must be at least 1 (got 0)",
			path + ":4: compact.budget: must be at least 1000 characters (got 10)",
			`env MEMORY_LLM_PROVIDER: llm.provider: must be one of opencode, openai, anthropic, none (got "gpt")`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(path, true, env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			err = c.Validate()
			if err == nil {
				t.Fatal("no error")
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("error:\n%s\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != "compact.churn" {
				t.Errorf("first error is not a *KeyError for compact.churn: %#v", ke)
			}
		})
	}
	c := Default()
	err := c.ApplyEnv(env(map[string]string{"MEMORY_COMPACT_POLL_MS": "10s"}))
	if want := `env MEMORY_COMPACT_POLL_MS: compact.poll: must be a whole number of milliseconds (got "10s")`; err == nil || err.Error() != want {
		t.Errorf("bad env duration: %v\nwant %s", err, want)
	}
	c = Default()
	if err := c.Set("memory_dir", "", Origin{Source: FromFlag, Name: "--memory-dir"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), "flag --memory-dir: memory_dir: is required") {
		t.Errorf("flag origin: %v", err)
	}
}

// TestOrigins checks that every layer records where each value came from.
func TestOrigins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte("# mine\nmemory_dir: /from/file\ngit:\n  author: A <a@example.com>\ncompact:\n  churn: 3\n"), 0o600)
	c, err := Load(path, true, env(map[string]string{
		"MEMORY_COMPACT_CHURN": "5",
		"MEMORY_LLM_PROVIDER":  "anthropic",
		"ANTHROPIC_API_KEY":    "sk-ant",
	}))
	if err != nil {
		t.Fatal(err)
	}
	snapshot := c // a copy taken before the flag must keep its origins
	if err := c.Set("memory_dir", "/from/flag", Origin{Source: FromFlag, Name: "--memory-dir"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"memory_dir":    "flag --memory-dir",
		"git.author":    path + ":4",
		"compact.churn": "env MEMORY_COMPACT_CHURN",
		"llm.provider":  "env MEMORY_LLM_PROVIDER",
		"llm.api_key":   "env ANTHROPIC_API_KEY",
		"index.rescan":  "default",
	}
	for key, w := range want {
		if got := c.Origin(key).String(); got != w {
			t.Errorf("%s: origin %q, want %q", key, got, w)
		}
	}
	if got := snapshot.Origin("memory_dir").String(); got != path+":2" {
		t.Errorf("copy's origin changed with the original: %q", got)
	}
	if p, found := c.File(); p != path || !found {
		t.Errorf("File() = %q, %v", p, found)
	}
	settings := c.Settings()
	if len(settings) != len(fields) || settings[0].Key != "memory_dir" || settings[0].Value != "/from/flag" {
		t.Fatalf("settings: %+v", settings[0])
	}
	for _, s := range settings {
		if s.Key == "llm.api_key" && !s.Secret {
			t.Error("llm.api_key is not marked secret")
		}
	}
}

func TestExpandHome(t *testing.T) {
	c := Default()
	c.MemoryDir, c.Extract.OpenCodeDB = "~/notes/memory", "~"
	if err := c.ExpandHome("/home/ada"); err != nil {
		t.Fatal(err)
	}
	if c.MemoryDir != "/home/ada/notes/memory" || c.Extract.OpenCodeDB != "/home/ada" {
		t.Errorf("expanded: %q %q", c.MemoryDir, c.Extract.OpenCodeDB)
	}
	c.MemoryDir, c.Extract.OpenCodeDB = "~bob/notes", "/abs/opencode.db"
	c.Extract.Model = "~/not-a-path"
	c.ExpandHome("/home/ada")
	if c.MemoryDir != "~bob/notes" || c.Extract.OpenCodeDB != "/abs/opencode.db" || c.Extract.Model != "~/not-a-path" {
		t.Errorf("changed what it should not: %+v", c)
	}
	c = Default()
	c.Set("memory_dir", "~/m", Origin{Source: FromEnv, Name: "MEMORY_DIR"})
	if err := c.ExpandHome(""); err == nil || !strings.HasPrefix(err.Error(), "env MEMORY_DIR: memory_dir: cannot expand ~") {
		t.Errorf("no home: %v", err)
	}
}

func TestLogLevelAnyCase(t *testing.T) {
	for in, want := range map[string]string{"DEBUG": "debug", "Info": "info", "warning": "warn", " Error ": "error"} {
		c := Default()
		c.MemoryDir, c.LogLevel = "/m", in
		if err := c.Validate(); err != nil || c.LogLevel != want {
			t.Errorf("%q: %q, %v", in, c.LogLevel, err)
		}
	}
	c := Default()
	c.MemoryDir, c.LogLevel = "/m", "loud"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `log_level: must be one of debug, info, warn, error, in any case (got "loud")`) {
		t.Errorf("bad level: %v", err)
	}
}

// TestExampleFile checks that the repository's commented example sets
// every key, to its default (memory_dir aside), and parses cleanly.
func TestExampleFile(t *testing.T) {
	path := filepath.Join("..", "..", "config.example.yaml")
	c, err := Load(path, true, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Settings() {
		if s.Origin.Source != FromFile {
			t.Errorf("%s: not in the example file", s.Key)
		}
	}
	if c.MemoryDir != "~/notes/memory" {
		t.Errorf("memory_dir: %q", c.MemoryDir)
	}
	want := Default()
	c.MemoryDir = ""
	if got, want := c.Settings(), want.Settings(); len(got) == len(want) {
		for i := range got {
			if got[i].Value != want[i].Value {
				t.Errorf("%s: example %v, default %v", got[i].Key, got[i].Value, want[i].Value)
			}
		}
	}
}
