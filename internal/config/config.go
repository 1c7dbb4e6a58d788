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
	"net/url"
	"os"
	"slices"
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

// Validate checks every value and returns one error per bad key, each naming
// the key, the value and where it came from (file:line, variable or flag).
// It first applies the documented normalisations: compact.poll is raised
// to MinPoll, an empty compact.model becomes extract.model, and
// llm.provider and log_level are lower-cased.
func (c *Config) Validate() error {
	c.normalize()
	v := &validator{c: c}
	v.storage()
	v.jobs()
	v.services()
	return errors.Join(v.errs...)
}

// validator gathers Validate's errors, each with its key's origin.
type validator struct {
	c    *Config
	errs []error
}

func (v *validator) bad(key, format string, args ...any) {
	v.errs = append(v.errs, &KeyError{Origin: v.c.Origin(key), Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) positive(key string, d Duration) {
	if d <= 0 {
		v.bad(key, "must be greater than zero (got %s)", d)
	}
}

func (v *validator) atLeast(key string, n, min int, unit string) {
	if n < min {
		v.bad(key, "must be at least %d%s (got %d)", min, unit, n)
	}
}

// storage checks the folder, its commits and its indexes.
func (v *validator) storage() {
	c, bad, positive, atLeast := v.c, v.bad, v.positive, v.atLeast
	if c.MemoryDir == "" {
		where := "the config file"
		if c.file != "" {
			where = c.file
		}
		bad("memory_dir", "is required (set it in %s, MEMORY_DIR or --memory-dir)", where)
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
	atLeast("index.max_lines", c.Index.MaxLines, 1, "")
	atLeast("index.max_bytes", c.Index.MaxBytes, 1, "")
}

// jobs checks extraction, compaction and the model they call.
func (v *validator) jobs() {
	c, bad, positive, atLeast := v.c, v.bad, v.positive, v.atLeast
	positive("extract.debounce", c.Extract.Debounce)
	if c.Extract.Model == "" {
		bad("extract.model", "must not be empty")
	}
	if r := strings.TrimSpace(c.Extract.Review); r != "" && r != "none" && r != "all" {
		for _, t := range strings.Split(r, ",") {
			if t = strings.TrimSpace(t); !slices.Contains([]string{"user", "feedback", "project", "reference"}, t) {
				bad("extract.review", "must be none, all, or a comma-separated list of user, feedback, project, reference (got %q)", c.Extract.Review)
				break
			}
		}
	}
	atLeast("compact.churn", c.Compact.Churn, 1, "")
	atLeast("compact.min_entries", c.Compact.MinEntries, 0, "")
	positive("compact.interval", c.Compact.Interval)
	positive("compact.poll", c.Compact.Poll)
	atLeast("compact.budget", c.Compact.Budget, 1000, " characters")
	switch c.LLM.Provider {
	case "", "opencode", "openai", "anthropic", "none":
	default:
		bad("llm.provider", "must be one of opencode, openai, anthropic, none (got %q)", c.LLM.Provider)
	}
	positive("llm.timeout", c.LLM.Timeout)
	atLeast("llm.daily_tokens", c.LLM.DailyTokens, 0, " (0 means no limit)")
}

// services checks embeddings, recall, review, sync and the log.
func (v *validator) services() {
	c, bad, positive, atLeast := v.c, v.bad, v.positive, v.atLeast
	if u := c.Embed.BaseURL; u != "" {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			bad("embed.base_url", "must be http(s)://host[/path], such as http://localhost:11434/v1 (got %q)", u)
		}
		if strings.TrimSpace(c.Embed.Model) == "" {
			bad("embed.model", "must be set when embed.base_url is (such as nomic-embed-text or text-embedding-3-small)")
		}
	}
	positive("embed.timeout", c.Embed.Timeout)
	switch c.Embed.Fusion {
	case "", "zscore", "rrf":
	default:
		bad("embed.fusion", "must be zscore or rrf (got %q)", c.Embed.Fusion)
	}
	atLeast("recall.max_bytes", c.Recall.MaxBytes, 0, " (0 turns recall off)")
	positive("recall.timeout", c.Recall.Timeout)
	if c.Review.UnusedAfter < 0 {
		bad("review.unused_after", "must not be negative, such as 90d, or 0 to turn it off (got %s)", c.Review.UnusedAfter)
	}
	if _, err := Horizon(c.Extract.Since, time.Time{}, time.Now()); err != nil {
		bad("extract.since", "%s", err.Error())
	}
	positive("sync.interval", c.Sync.Interval)
	if r := c.Sync.Remote; r != "" && (strings.HasPrefix(r, "-") || strings.ContainsAny(r, " \t\n\x00")) {
		bad("sync.remote", "must be the name of a git remote, such as origin (got %q)", r)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log_level", "must be one of debug, info, warn, error, in any case (got %q)", c.LogLevel)
	}
}

// normalize applies the clamps and defaults that depend on other keys, and
// folds the case of the words that are case-insensitive.
func (c *Config) normalize() {
	if c.Compact.Poll > 0 && c.Compact.Poll.D() < MinPoll {
		c.Compact.Poll = Duration(MinPoll)
	}
	if c.Compact.Model == "" {
		c.Compact.Model = c.Extract.Model
	}
	c.LLM.Provider = strings.ToLower(strings.TrimSpace(c.LLM.Provider))
	c.LogLevel = strings.ToLower(strings.TrimSpace(c.LogLevel))
	if c.LogLevel == "warning" {
		c.LogLevel = "warn"
	}
}

func validAuthor(s string) bool {
	lt, gt := strings.Index(s, "<"), strings.LastIndex(s, ">")
	return lt > 0 && gt == len(s)-1 && gt > lt+1 && strings.TrimSpace(s[:lt]) != ""
}
