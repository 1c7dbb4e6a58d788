package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// field is one configuration key: its dotted path in the YAML file, the
// environment variable that overrides it, and where its value lives. This
// table is the one list of keys: the YAML reader, the environment, flags,
// origins and `memoryd config` all walk it.
type field struct {
	key    string
	env    string // "" when no variable sets it
	path   bool   // a file path: a leading ~/ is expanded by ExpandHome
	secret bool   // never shown
	ptr    func(*Config) any
}

var fields = []field{
	{key: "memory_dir", env: "MEMORY_DIR", path: true, ptr: func(c *Config) any { return &c.MemoryDir }},
	{key: "git.commit_debounce", env: "MEMORY_COMMIT_DEBOUNCE_MS", ptr: func(c *Config) any { return &c.Git.CommitDebounce }},
	{key: "git.commit_max_wait", env: "MEMORY_COMMIT_MAX_WAIT_MS", ptr: func(c *Config) any { return &c.Git.CommitMaxWait }},
	{key: "git.author", env: "MEMORY_GIT_AUTHOR", ptr: func(c *Config) any { return &c.Git.Author }},
	{key: "index.debounce", env: "MEMORY_INDEX_DEBOUNCE_MS", ptr: func(c *Config) any { return &c.Index.Debounce }},
	{key: "index.max_lines", ptr: func(c *Config) any { return &c.Index.MaxLines }},
	{key: "index.max_bytes", ptr: func(c *Config) any { return &c.Index.MaxBytes }},
	{key: "index.rescan", ptr: func(c *Config) any { return &c.Index.Rescan }},
	{key: "extract.enabled", env: "MEMORY_EXTRACT_ENABLED", ptr: func(c *Config) any { return &c.Extract.Enabled }},
	{key: "extract.debounce", env: "MEMORY_EXTRACT_DEBOUNCE_MS", ptr: func(c *Config) any { return &c.Extract.Debounce }},
	{key: "extract.model", env: "MEMORY_EXTRACT_MODEL", ptr: func(c *Config) any { return &c.Extract.Model }},
	{key: "extract.opencode_db", env: "MEMORY_OPENCODE_DB", path: true, ptr: func(c *Config) any { return &c.Extract.OpenCodeDB }},
	{key: "extract.review", env: "MEMORY_EXTRACT_REVIEW", ptr: func(c *Config) any { return &c.Extract.Review }},
	{key: "extract.since", env: "MEMORY_EXTRACT_SINCE", ptr: func(c *Config) any { return &c.Extract.Since }},
	{key: "extract.exclude", env: "MEMORY_EXTRACT_EXCLUDE", ptr: func(c *Config) any { return &c.Extract.Exclude }},
	{key: "compact.enabled", env: "MEMORY_COMPACT_ENABLED", ptr: func(c *Config) any { return &c.Compact.Enabled }},
	{key: "compact.churn", env: "MEMORY_COMPACT_CHURN", ptr: func(c *Config) any { return &c.Compact.Churn }},
	{key: "compact.min_entries", env: "MEMORY_COMPACT_MIN_ENTRIES", ptr: func(c *Config) any { return &c.Compact.MinEntries }},
	{key: "compact.interval", env: "MEMORY_COMPACT_INTERVAL_MS", ptr: func(c *Config) any { return &c.Compact.Interval }},
	{key: "compact.poll", env: "MEMORY_COMPACT_POLL_MS", ptr: func(c *Config) any { return &c.Compact.Poll }},
	{key: "compact.model", env: "MEMORY_COMPACT_MODEL", ptr: func(c *Config) any { return &c.Compact.Model }},
	{key: "compact.budget", ptr: func(c *Config) any { return &c.Compact.Budget }},
	{key: "llm.provider", env: "MEMORY_LLM_PROVIDER", ptr: func(c *Config) any { return &c.LLM.Provider }},
	{key: "llm.base_url", env: "MEMORY_LLM_BASE_URL", ptr: func(c *Config) any { return &c.LLM.BaseURL }},
	{key: "llm.api_key", env: "MEMORY_LLM_API_KEY", secret: true, ptr: func(c *Config) any { return &c.LLM.APIKey }},
	{key: "llm.timeout", env: "MEMORY_LLM_TIMEOUT_MS", ptr: func(c *Config) any { return &c.LLM.Timeout }},
	{key: "llm.daily_tokens", env: "MEMORY_LLM_DAILY_TOKENS", ptr: func(c *Config) any { return &c.LLM.DailyTokens }},
	{key: "embed.base_url", env: "MEMORY_EMBED_BASE_URL", ptr: func(c *Config) any { return &c.Embed.BaseURL }},
	{key: "embed.model", env: "MEMORY_EMBED_MODEL", ptr: func(c *Config) any { return &c.Embed.Model }},
	{key: "embed.api_key", env: "MEMORY_EMBED_API_KEY", secret: true, ptr: func(c *Config) any { return &c.Embed.APIKey }},
	{key: "embed.timeout", env: "MEMORY_EMBED_TIMEOUT_MS", ptr: func(c *Config) any { return &c.Embed.Timeout }},
	{key: "embed.fusion", env: "MEMORY_EMBED_FUSION", ptr: func(c *Config) any { return &c.Embed.Fusion }},
	{key: "search.thesaurus", env: "MEMORY_THESAURUS", path: true, ptr: func(c *Config) any { return &c.Search.Thesaurus }},
	{key: "recall.max_bytes", env: "MEMORY_RECALL_MAX_BYTES", ptr: func(c *Config) any { return &c.Recall.MaxBytes }},
	{key: "recall.timeout", env: "MEMORY_RECALL_TIMEOUT_MS", ptr: func(c *Config) any { return &c.Recall.Timeout }},
	{key: "review.unused_after", env: "MEMORY_REVIEW_UNUSED_AFTER", ptr: func(c *Config) any { return &c.Review.UnusedAfter }},
	{key: "sync.enabled", env: "MEMORY_SYNC_ENABLED", ptr: func(c *Config) any { return &c.Sync.Enabled }},
	{key: "sync.remote", env: "MEMORY_SYNC_REMOTE", ptr: func(c *Config) any { return &c.Sync.Remote }},
	{key: "sync.interval", env: "MEMORY_SYNC_INTERVAL_MS", ptr: func(c *Config) any { return &c.Sync.Interval }},
	{key: "log_level", env: "MEMORY_LOG_LEVEL", ptr: func(c *Config) any { return &c.LogLevel }},
}

func lookup(key string) (field, bool) {
	for _, f := range fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// isSection reports whether key names a group of keys (git, index, …).
func isSection(key string) bool {
	for _, f := range fields {
		if sec, _, ok := strings.Cut(f.key, "."); ok && sec == key {
			return true
		}
	}
	return false
}

// Setting is one key of the effective configuration, for display.
type Setting struct {
	Key    string
	Value  any    // string, int, bool or Duration
	Env    string // the variable that overrides it, or ""
	Secret bool   // the value must not be shown
	Origin Origin
}

// Settings lists every key with its value and origin, in the order of the
// example configuration file.
func (c *Config) Settings() []Setting {
	out := make([]Setting, 0, len(fields))
	for _, f := range fields {
		var v any
		switch p := f.ptr(c).(type) {
		case *string:
			v = *p
		case *int:
			v = *p
		case *bool:
			v = *p
		case *Duration:
			v = *p
		}
		out = append(out, Setting{Key: f.key, Value: v, Env: f.env, Secret: f.secret, Origin: c.Origin(f.key)})
	}
	return out
}

// Origin says where key's value came from; keys never set are FromDefault.
func (c *Config) Origin(key string) Origin { return c.origins[key] }

// setOrigin records o for key. Config is copied by value, so the map is
// copied on every write (it holds at most one entry per key) and copies
// never share origins.
func (c *Config) setOrigin(key string, o Origin) {
	m := make(map[string]Origin, len(c.origins)+1)
	maps.Copy(m, c.origins)
	m[key] = o
	c.origins = m
}

// Set parses value for key, as written on a command line, and records
// from as its origin. The caller applies flags after Load, so a flag wins.
func (c *Config) Set(key, value string, from Origin) error {
	f, ok := lookup(key)
	if !ok {
		return &KeyError{Origin: from, Key: key, Msg: "unknown key"}
	}
	if err := f.setText(c, value, false); err != nil {
		return &KeyError{Origin: from, Key: key, Msg: err.Error()}
	}
	c.setOrigin(key, from)
	return nil
}

// ExpandHome replaces a leading ~ or ~/ in every path-valued key
// (memory_dir, extract.opencode_db) with home. Call it once, after the
// environment and flags are applied and before Validate; nothing else
// expands ~. A path needing home when home is "" is an error naming the key.
func (c *Config) ExpandHome(home string) error {
	var errs []error
	for _, f := range fields {
		p, ok := f.ptr(c).(*string)
		if !f.path || !ok {
			continue
		}
		rest, found := strings.CutPrefix(*p, "~")
		if !found || (rest != "" && rest[0] != '/') {
			continue // "~user/…" is not expanded
		}
		if home == "" {
			errs = append(errs, &KeyError{Origin: c.Origin(f.key), Key: f.key, Msg: fmt.Sprintf("cannot expand ~ in %q: HOME is not set", *p)})
			continue
		}
		*p = filepath.Join(home, rest)
	}
	return errors.Join(errs...)
}

// setText parses s into f's value. msOnly is for the *_MS environment
// variables, whose durations are whole milliseconds only.
func (f field) setText(c *Config, s string, msOnly bool) error {
	switch p := f.ptr(c).(type) {
	case *string:
		*p = s
	case *int:
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("must be a whole number (got %q)", s)
		}
		*p = n
	case *bool:
		b, err := parseBool(s)
		if err != nil {
			return err
		}
		*p = b
	case *Duration:
		d, err := parseDuration(s, msOnly)
		if err != nil {
			return err
		}
		*p = d
	}
	return nil
}

// boolWords is what every boolean accepts, in YAML, variables and flags.
const boolWords = "true/false, yes/no, on/off or 1/0"

func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("must be %s (got %q)", boolWords, v)
}

// parseDuration reads a Go duration ("2s", "12h"), whole days ("90d") or
// whole milliseconds; with msOnly, whole milliseconds only.
func parseDuration(v string, msOnly bool) (Duration, error) {
	s := strings.TrimSpace(v)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		if msOnly && ms < 0 {
			return 0, fmt.Errorf("must not be negative (got %q)", v)
		}
		return Duration(time.Duration(ms) * time.Millisecond), nil
	}
	if msOnly {
		return 0, fmt.Errorf("must be a whole number of milliseconds (got %q)", v)
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return Duration(time.Duration(n) * 24 * time.Hour), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("must be a duration such as 2s, 90m or 12h, or a whole number of milliseconds (got %q)", v)
	}
	return Duration(d), nil
}
