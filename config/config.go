// Package config reads memoryd's configuration: defaults, then the YAML file,
// then environment variables, then flags (applied by the caller), then
// Validate. Only cmd/memoryd uses this package; every other package receives
// plain option structs.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the whole configuration. Field comments name the environment
// variable that overrides the YAML key.
type Config struct {
	MemoryDir string  `yaml:"memory_dir"` // MEMORY_DIR
	Git       Git     `yaml:"git"`
	Index     Index   `yaml:"index"`
	Extract   Extract `yaml:"extract"`
	Compact   Compact `yaml:"compact"`
	LLM       LLM     `yaml:"llm"`
	LogLevel  string  `yaml:"log_level"` // MEMORY_LOG_LEVEL: debug, info, warn, error
}

// Git configures commits.
type Git struct {
	CommitDebounce Duration `yaml:"commit_debounce"` // MEMORY_COMMIT_DEBOUNCE_MS: quiet period before a commit
	CommitMaxWait  Duration `yaml:"commit_max_wait"` // MEMORY_COMMIT_MAX_WAIT_MS: longest a change waits while edits continue
	Author         string   `yaml:"author"`          // MEMORY_GIT_AUTHOR: "Name <email>"
}

// Index configures MEMORY.md.
type Index struct {
	Debounce Duration `yaml:"debounce"`  // MEMORY_INDEX_DEBOUNCE_MS: quiet period before a rebuild
	MaxLines int      `yaml:"max_lines"` // budget: lines agents load
	MaxBytes int      `yaml:"max_bytes"` // budget: bytes agents load
	Rescan   Duration `yaml:"rescan"`    // periodic full rescan of the folder
}

// Extract configures extraction from agent transcripts.
type Extract struct {
	Enabled    bool     `yaml:"enabled"`     // MEMORY_EXTRACT_ENABLED
	Debounce   Duration `yaml:"debounce"`    // MEMORY_EXTRACT_DEBOUNCE_MS
	Model      string   `yaml:"model"`       // MEMORY_EXTRACT_MODEL
	OpenCodeDB string   `yaml:"opencode_db"` // MEMORY_OPENCODE_DB
}

// Compact configures compaction.
type Compact struct {
	Enabled    bool     `yaml:"enabled"`     // MEMORY_COMPACT_ENABLED
	Churn      int      `yaml:"churn"`       // MEMORY_COMPACT_CHURN
	MinEntries int      `yaml:"min_entries"` // MEMORY_COMPACT_MIN_ENTRIES
	Interval   Duration `yaml:"interval"`    // MEMORY_COMPACT_INTERVAL_MS
	Poll       Duration `yaml:"poll"`        // MEMORY_COMPACT_POLL_MS (clamped to at least MinPoll)
	Model      string   `yaml:"model"`       // MEMORY_COMPACT_MODEL ("" → the extract model)
	Budget     int      `yaml:"budget"`      // characters of store per LLM request
}

// LLM selects the provider.
type LLM struct {
	Provider string   `yaml:"provider"` // MEMORY_LLM_PROVIDER: opencode, openai, anthropic, none ("" → opencode if found, else none)
	BaseURL  string   `yaml:"base_url"` // MEMORY_LLM_BASE_URL
	APIKey   string   `yaml:"api_key"`  // MEMORY_LLM_API_KEY, else OPENAI_API_KEY / ANTHROPIC_API_KEY
	Timeout  Duration `yaml:"timeout"`  // MEMORY_LLM_TIMEOUT_MS: per request
}

// MinPoll is the shortest compaction poll interval; smaller values are raised
// to it, as the design says ("never below 60 s").
const MinPoll = 60 * time.Second

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{
		Git: Git{
			CommitDebounce: Duration(2 * time.Second),
			CommitMaxWait:  Duration(30 * time.Second),
		},
		Index: Index{
			Debounce: Duration(50 * time.Millisecond),
			MaxLines: 200,
			MaxBytes: 25 * 1024,
			Rescan:   Duration(10 * time.Minute),
		},
		Extract: Extract{
			Enabled:  true,
			Debounce: Duration(60 * time.Second),
			Model:    "openai/gpt-5-mini",
		},
		Compact: Compact{
			Enabled:    true,
			Churn:      8,
			MinEntries: 2,
			Interval:   Duration(12 * time.Hour),
			Poll:       Duration(10 * time.Minute),
			Budget:     60000,
		},
		LLM:      LLM{Timeout: Duration(120 * time.Second)},
		LogLevel: "info",
	}
}

// Parse reads YAML from r over c. Unknown keys are errors, so a typo does not
// silently leave a default in place.
func Parse(r io.Reader, c *Config) error {
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// Load returns Default overlaid with the file at path (skipped when
// mustExist is false and the file does not exist) and then the environment.
func Load(path string, mustExist bool, getenv func(string) string) (Config, error) {
	c := Default()
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			if err := Parse(bytes.NewReader(data), &c); err != nil {
				return c, fmt.Errorf("config %s: %w", path, err)
			}
		case errors.Is(err, os.ErrNotExist) && !mustExist:
		default:
			return c, fmt.Errorf("config: %w", err)
		}
	}
	if err := c.ApplyEnv(getenv); err != nil {
		return c, err
	}
	return c, nil
}

// ApplyEnv overrides c with the environment variables that are set.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	var errs []error
	str := func(key string, dst *string) {
		if v := getenv(key); v != "" {
			*dst = v
		}
	}
	ms := func(key string, dst *Duration) {
		if v := getenv(key); v != "" {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("%s: must be a whole number of milliseconds (got %q)", key, v))
				return
			}
			*dst = Duration(time.Duration(n) * time.Millisecond)
		}
	}
	num := func(key string, dst *int) {
		if v := getenv(key); v != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: must be a whole number (got %q)", key, v))
				return
			}
			*dst = n
		}
	}
	flag := func(key string, dst *bool) {
		if v := getenv(key); v != "" {
			b, err := parseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
				return
			}
			*dst = b
		}
	}
	str("MEMORY_DIR", &c.MemoryDir)
	ms("MEMORY_COMMIT_DEBOUNCE_MS", &c.Git.CommitDebounce)
	ms("MEMORY_COMMIT_MAX_WAIT_MS", &c.Git.CommitMaxWait)
	str("MEMORY_GIT_AUTHOR", &c.Git.Author)
	ms("MEMORY_INDEX_DEBOUNCE_MS", &c.Index.Debounce)
	flag("MEMORY_EXTRACT_ENABLED", &c.Extract.Enabled)
	ms("MEMORY_EXTRACT_DEBOUNCE_MS", &c.Extract.Debounce)
	str("MEMORY_EXTRACT_MODEL", &c.Extract.Model)
	str("MEMORY_OPENCODE_DB", &c.Extract.OpenCodeDB)
	flag("MEMORY_COMPACT_ENABLED", &c.Compact.Enabled)
	num("MEMORY_COMPACT_CHURN", &c.Compact.Churn)
	num("MEMORY_COMPACT_MIN_ENTRIES", &c.Compact.MinEntries)
	ms("MEMORY_COMPACT_INTERVAL_MS", &c.Compact.Interval)
	ms("MEMORY_COMPACT_POLL_MS", &c.Compact.Poll)
	str("MEMORY_COMPACT_MODEL", &c.Compact.Model)
	str("MEMORY_LLM_PROVIDER", &c.LLM.Provider)
	str("MEMORY_LLM_BASE_URL", &c.LLM.BaseURL)
	str("MEMORY_LLM_API_KEY", &c.LLM.APIKey)
	ms("MEMORY_LLM_TIMEOUT_MS", &c.LLM.Timeout)
	str("MEMORY_LOG_LEVEL", &c.LogLevel)
	if c.LLM.APIKey == "" {
		switch c.LLM.Provider {
		case "openai":
			c.LLM.APIKey = getenv("OPENAI_API_KEY")
		case "anthropic":
			c.LLM.APIKey = getenv("ANTHROPIC_API_KEY")
		}
	}
	return errors.Join(errs...)
}

// Validate checks every value and returns one error per bad key, each naming
// the key and the value. It also applies the documented clamps and defaults
// that depend on other keys (compact.poll, compact.model).
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	if c.MemoryDir == "" {
		bad("memory_dir", "is required (set it in the config file, MEMORY_DIR or --memory-dir)")
	}
	positive := func(key string, d Duration) {
		if d <= 0 {
			bad(key, "must be greater than zero (got %s)", d)
		}
	}
	positive("git.commit_debounce", c.Git.CommitDebounce)
	positive("git.commit_max_wait", c.Git.CommitMaxWait)
	if c.Git.CommitMaxWait < c.Git.CommitDebounce {
		bad("git.commit_max_wait", "must be at least git.commit_debounce (%s), got %s", c.Git.CommitDebounce, c.Git.CommitMaxWait)
	}
	if c.Git.Author != "" && !validAuthor(c.Git.Author) {
		bad("git.author", "must look like \"Name <email>\" (got %q)", c.Git.Author)
	}
	positive("index.debounce", c.Index.Debounce)
	positive("index.rescan", c.Index.Rescan)
	if c.Index.MaxLines <= 0 {
		bad("index.max_lines", "must be greater than zero (got %d)", c.Index.MaxLines)
	}
	if c.Index.MaxBytes <= 0 {
		bad("index.max_bytes", "must be greater than zero (got %d)", c.Index.MaxBytes)
	}
	positive("extract.debounce", c.Extract.Debounce)
	if c.Extract.Model == "" {
		bad("extract.model", "must not be empty")
	}
	if c.Compact.Churn < 1 {
		bad("compact.churn", "must be at least 1 (got %d)", c.Compact.Churn)
	}
	if c.Compact.MinEntries < 0 {
		bad("compact.min_entries", "must not be negative (got %d)", c.Compact.MinEntries)
	}
	positive("compact.interval", c.Compact.Interval)
	positive("compact.poll", c.Compact.Poll)
	if c.Compact.Poll > 0 && c.Compact.Poll.D() < MinPoll {
		c.Compact.Poll = Duration(MinPoll)
	}
	if c.Compact.Budget < 1000 {
		bad("compact.budget", "must be at least 1000 characters (got %d)", c.Compact.Budget)
	}
	if c.Compact.Model == "" {
		c.Compact.Model = c.Extract.Model
	}
	switch c.LLM.Provider {
	case "", "opencode", "openai", "anthropic", "none":
	default:
		bad("llm.provider", "must be one of opencode, openai, anthropic, none (got %q)", c.LLM.Provider)
	}
	positive("llm.timeout", c.LLM.Timeout)
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log_level", "must be one of debug, info, warn, error (got %q)", c.LogLevel)
	}
	return errors.Join(errs...)
}

func validAuthor(s string) bool {
	lt, gt := strings.Index(s, "<"), strings.LastIndex(s, ">")
	return lt > 0 && gt == len(s)-1 && gt > lt+1 && strings.TrimSpace(s[:lt]) != ""
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("must be 1 or 0 (got %q)", v)
}
