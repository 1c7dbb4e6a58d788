package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// This file validates a loaded configuration: every error names its key.

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
