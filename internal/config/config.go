// Package config reads memoryd's configuration: defaults, then the YAML file,
// then environment variables, then flags (applied by the caller with Set),
// then ExpandHome, then Validate. It remembers where every value came from
// (Origin), so errors and `memoryd config` can say so. Only cmd/memoryd
// uses this package; every other package receives plain option structs.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
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
	Embed     Embed   `yaml:"embed"`
	Search    Search  `yaml:"search"`
	Recall    Recall  `yaml:"recall"`
	Review    Review  `yaml:"review"`
	Sync      Sync    `yaml:"sync"`
	LogLevel  string  `yaml:"log_level"` // MEMORY_LOG_LEVEL: debug, info, warn, error

	origins   map[string]Origin // key → where its value came from; absent means default
	file      string            // the file Load was given
	fileFound bool              // whether it existed
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
	// Review is which extracted facts wait in _inbox/ for a person: "none",
	// "all", or a comma-separated list of types. MEMORY_EXTRACT_REVIEW.
	Review string `yaml:"review"`
	// Since is how far back the sessions the daemon and `memoryd extract`
	// take go: "install" (those active since memoryd first ran for the
	// folder), "all", an age ("30d") or a date ("2026-11-01").
	// MEMORY_EXTRACT_SINCE.
	Since string `yaml:"since"`
	// Exclude is what is never extracted, comma-separated: agent names
	// (opencode, claude, codex) and project folders, as paths or globs
	// ("~/work/secret", "/srv/*"), each with every folder below it.
	// MEMORY_EXTRACT_EXCLUDE.
	Exclude string `yaml:"exclude"`
}

// Horizon is the time from which sessions are extracted, by since (see
// Extract.Since), given when memoryd first ran for the folder: the zero
// time for "all".
func Horizon(since string, firstRun, now time.Time) (time.Time, error) {
	switch s := strings.TrimSpace(since); s {
	case "", "install":
		return firstRun, nil
	case "all":
		return time.Time{}, nil
	default:
		if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
			return t, nil
		}
		d, err := ParseDuration(s)
		if err != nil || d <= 0 {
			return time.Time{}, fmt.Errorf("must be install, all, an age such as 30d or a date such as 2026-11-01 (got %q)", s)
		}
		return now.Add(-d), nil
	}
}

// Reviewed reports whether an extracted fact of type typ waits for review.
func (e Extract) Reviewed(typ string) bool {
	switch r := strings.TrimSpace(e.Review); r {
	case "", "none":
		return false
	case "all":
		return true
	default:
		for _, t := range strings.Split(r, ",") {
			if strings.TrimSpace(t) == typ {
				return true
			}
		}
		return false
	}
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
	// DailyTokens is MEMORY_LLM_DAILY_TOKENS: once the day's calls spent
	// this many tokens, the daemon starts no extraction or compaction
	// until local midnight; 0 means no limit.
	DailyTokens int `yaml:"daily_tokens"`
}

// Embed configures the optional second signal of search: an
// OpenAI-compatible /v1/embeddings endpoint (OpenAI, or a local Ollama or
// llama.cpp server). Off while BaseURL is empty.
type Embed struct {
	BaseURL string `yaml:"base_url"` // MEMORY_EMBED_BASE_URL: "" turns it off; include the version segment (http://localhost:11434/v1)
	Model   string `yaml:"model"`    // MEMORY_EMBED_MODEL: required with base_url
	APIKey  string `yaml:"api_key"`  // MEMORY_EMBED_API_KEY, else llm.api_key when the endpoint is the openai provider's own host
	// Timeout bounds embedding a search's query: past it the search is
	// lexical. MEMORY_EMBED_TIMEOUT_MS.
	Timeout Duration `yaml:"timeout"`
	// Fusion is how search fuses the word and embedding rankings:
	// "zscore" (weighted z-scores of the two scores, the default) or "rrf"
	// (reciprocal rank fusion). MEMORY_EMBED_FUSION.
	Fusion string `yaml:"fusion"`
}

// Search configures search's ranking by words.
type Search struct {
	// Thesaurus is the WordNet database whose related words a query word
	// that no fact has is looked for by: "" looks in $WNSEARCHDIR and
	// where Debian and Homebrew install it, "off" uses none, anything
	// else is the folder holding WordNet's index.noun. MEMORY_THESAURUS.
	Thesaurus string `yaml:"thesaurus"`
}

// Recall configures `memoryd recall`, the per-prompt hook that adds the few
// facts relevant to a prompt to an agent's context.
type Recall struct {
	// MaxBytes bounds what one prompt gets, preface included; 0 turns
	// recall off. MEMORY_RECALL_MAX_BYTES.
	MaxBytes int `yaml:"max_bytes"`
	// Timeout bounds one recall: past it, the prompt goes on without
	// memory. MEMORY_RECALL_TIMEOUT_MS.
	Timeout Duration `yaml:"timeout"`
}

// Review configures what memoryd proposes for a person's review.
type Review struct {
	// UnusedAfter is how long a fact may go unused by any agent before
	// status proposes reviewing it (pinned and user facts never are); 0
	// turns the proposal off. MEMORY_REVIEW_UNUSED_AFTER.
	UnusedAfter Duration `yaml:"unused_after"`
}

// Sync configures sync across machines through the notes repository's
// own git remote.
type Sync struct {
	// Enabled turns sync on: the daemon pushes after its commits and
	// integrates the remote's commits when it is safe. MEMORY_SYNC_ENABLED.
	Enabled bool `yaml:"enabled"`
	// Remote is the git remote to sync with; "" means the current branch's
	// upstream remote. MEMORY_SYNC_REMOTE.
	Remote string `yaml:"remote"`
	// Interval is how often an idle daemon fetches. MEMORY_SYNC_INTERVAL_MS.
	Interval Duration `yaml:"interval"`
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
			MaxBytes: 25000,
			Rescan:   Duration(10 * time.Minute),
		},
		Extract: Extract{
			Enabled:  true,
			Debounce: Duration(60 * time.Second),
			Model:    "openai/gpt-5-mini",
			Review:   "none",
			Since:    "install",
		},
		Compact: Compact{
			Enabled:    true,
			Churn:      8,
			MinEntries: 2,
			Interval:   Duration(12 * time.Hour),
			Poll:       Duration(10 * time.Minute),
			Budget:     60000,
		},
		LLM:      LLM{Timeout: Duration(120 * time.Second), DailyTokens: 1_000_000},
		Embed:    Embed{Timeout: Duration(300 * time.Millisecond), Fusion: "zscore"},
		Recall:   Recall{MaxBytes: 1500, Timeout: Duration(2 * time.Second)},
		Review:   Review{UnusedAfter: Duration(90 * 24 * time.Hour)},
		Sync:     Sync{Interval: Duration(5 * time.Minute)},
		LogLevel: "info",
	}
}

// Load returns Default overlaid with the file at path (skipped when
// mustExist is false and the file does not exist) and then the environment.
// Errors name the file and line, or the variable, and the key. On error
// Load still returns everything it could apply, with all the errors
// joined, so that `memoryd config` can show it. The caller then applies
// flags (Set), ExpandHome and Validate, in that order.
func Load(path string, mustExist bool, getenv func(string) string) (Config, error) {
	c := Default()
	c.file = path
	var errs []error
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			c.fileFound = true
			errs = append(errs, Parse(bytes.NewReader(data), path, &c))
		case errors.Is(err, os.ErrNotExist) && !mustExist:
		default:
			errs = append(errs, fmt.Errorf("config: %w", err))
		}
	}
	errs = append(errs, c.ApplyEnv(getenv))
	return c, errors.Join(errs...)
}

// File is the configuration file Load was given and whether it was read.
func (c *Config) File() (path string, found bool) { return c.file, c.fileFound }

// ApplyEnv overrides c with the environment variables that are set (an
// empty variable counts as unset). Durations in variables are whole
// milliseconds, as their _MS names say. Errors name the variable and key.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	var errs []error
	for _, f := range fields {
		v := ""
		if f.env != "" {
			v = getenv(f.env)
		}
		if v == "" {
			continue
		}
		o := Origin{Source: FromEnv, Name: f.env}
		if err := f.setText(c, v, true); err != nil {
			errs = append(errs, &KeyError{Origin: o, Key: f.key, Msg: err.Error()})
			continue
		}
		c.setOrigin(f.key, o)
	}
	if c.LLM.APIKey == "" {
		vendor := map[string]string{"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
		if name := vendor[strings.ToLower(strings.TrimSpace(c.LLM.Provider))]; name != "" && getenv(name) != "" {
			c.LLM.APIKey = getenv(name)
			c.setOrigin("llm.api_key", Origin{Source: FromEnv, Name: name})
		}
	}
	return errors.Join(errs...)
}
