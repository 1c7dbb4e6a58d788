package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/memoryd/memoryd/internal/compactor"
	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/cost"
	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/embed"
	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/transcript"
	"github.com/memoryd/memoryd/internal/watcher"
)

// This file wires the packages together from a resolved folder: the
// daemon's options and parts, the LLM client, the compactor and the
// extractor. Commands call these and nothing else builds them.

// daemonOptions is the daemon's configuration for f.
func daemonOptions(f *folder) daemon.Options {
	c := f.cfg
	return daemon.Options{
		MemoryDir:     f.dir,
		StateDir:      f.stateDir,
		IndexQuiet:    c.Index.Debounce.D(),
		CommitQuiet:   c.Git.CommitDebounce.D(),
		CommitMaxWait: c.Git.CommitMaxWait.D(),
		Budget:        index.Budget{Lines: c.Index.MaxLines, Bytes: c.Index.MaxBytes},
		Compact: daemon.CompactPolicy{
			Enabled: c.Compact.Enabled, Churn: c.Compact.Churn, MinEntries: c.Compact.MinEntries,
			Interval: c.Compact.Interval.D(), Poll: c.Compact.Poll.D(),
		},
		Extract:     daemon.ExtractPolicy{Debounce: c.Extract.Debounce.D()},
		DailyTokens: c.LLM.DailyTokens,
		Sync:        daemon.SyncPolicy{Interval: c.Sync.Interval.D()},
		Version:     version(),
		Logger:      f.log,
	}
}

// daemonDeps builds what the daemon drives. The closers must be closed
// when the daemon has stopped.
func daemonDeps(f *folder) (daemon.Deps, []io.Closer, error) {
	deps := daemon.Deps{
		Watcher: watcher.New(watcher.Options{Dir: f.dir, Ignore: index.Ignored, RescanInterval: f.cfg.Index.Rescan.D(), Logger: f.log}),
		Store:   newStore(f),
	}
	if f.repo == nil {
		deps.GitProblem = f.gitProblem()
	} else {
		deps.Git, deps.Commit = f.repo, f.txn()
	}
	deps.Published = codexPublisher(f)
	if f.cfg.Sync.Enabled && f.repo != nil {
		deps.Sync = newSyncer(f, "memoryd run (sync)")
	}
	var closers []io.Closer
	if x, err := search.Open(f.stateDir, f.dir); err != nil {
		f.log.Warn("no search index: memoryd search builds one when asked", "err", err)
	} else {
		x.SetEmbedder(embedder(f))
		x.SetFusion(f.cfg.Embed.Fusion)
		srv := warmServer(f, x)
		deps.Search, deps.Readers = srv, srv
		deps.Gate = f.txn().Gate()
		closers = append(closers, x)
	}
	client, more, err := jobLLM(f)
	closers = append(closers, more...)
	if err != nil || client == nil {
		return deps, closers, err
	}
	if f.cfg.Compact.Enabled {
		deps.Compactor = compactor.New(compactorOptions(f, client, "memoryd run"))
	}
	if f.cfg.Extract.Enabled {
		srcs := openSources(f)
		closers = append(closers, srcs)
		deps.Extraction = &daemon.Extraction{Extractor: newExtractor(f, client, srcs, "memoryd run for "+f.dir)}
	}
	return deps, closers, nil
}

// embedder is the embeddings client of search's second signal, or nil when
// embed.base_url is empty: search then stays lexical and says nothing. Its
// tokens count against llm.daily_tokens; its key is embed.Key's.
func embedder(f *folder) search.Embedder {
	c := f.cfg.Embed
	if c.BaseURL == "" {
		return nil
	}
	key := embed.Key(c.BaseURL, c.APIKey, providerName(f), f.cfg.LLM.BaseURL, f.cfg.LLM.APIKey)
	e, err := embed.New(embed.Options{BaseURL: c.BaseURL, Model: c.Model, APIKey: key, Timeout: c.Timeout.D(),
		StateDir: f.stateDir, DailyTokens: f.cfg.LLM.DailyTokens, Logger: f.log})
	if err != nil {
		f.log.Warn("no embeddings: search answers by words alone", "err", err)
		return nil
	}
	return e
}

// codexPublisher copies MEMORY.md into the memoryd block of Codex's
// AGENTS.md after every rebuild that changed it, when `install --codex`
// put the block there (it does nothing otherwise).
func codexPublisher(f *folder) func() error {
	home := install.CodexHome(f.getenv("HOME"), f.getenv("CODEX_HOME"))
	return func() error {
		data, err := index.ReadPlain(f.dir, index.IndexFile)
		if err != nil {
			return err
		}
		_, err = install.RefreshCodexBlock(home, data)
		return err
	}
}

// newStore is the folder's index store with the configured budget
// (txn.Folder.NewStore): every writer uses the same one.
func newStore(f *folder) *index.Store { return f.txn().NewStore() }

// jobLLM is the LLM client of the daemon's jobs, or nil when they are off
// or impossible (no provider, no repository), which is logged.
func jobLLM(f *folder) (llm.Completer, []io.Closer, error) {
	switch {
	case !f.cfg.Compact.Enabled && !f.cfg.Extract.Enabled:
		return nil, nil, nil
	case f.repo == nil:
		f.log.Warn("compaction and extraction are off: " + f.gitProblem())
		return nil, nil, nil
	}
	client, provider, err := newLLMLimited(f, f.cfg.LLM.DailyTokens)
	if err != nil {
		return nil, nil, err
	}
	if provider == "none" {
		f.log.Info("no LLM provider: compaction and extraction are off (set llm.provider)")
		return nil, nil, nil
	}
	var closers []io.Closer
	if c, ok := client.(io.Closer); ok {
		closers = append(closers, c)
	}
	return client, closers, nil
}

// providerName resolves the configured provider: "" means opencode when it
// is on PATH, else none.
func providerName(f *folder) string {
	p, _ := llm.EffectiveProvider(f.cfg.LLM.Provider)
	return p
}

// newLLM builds the configured LLM client, which records the tokens of
// every call in the state folder's ledger (cost.Counter): the daemon's,
// the commands' and doctor's calls alike, so the daily budget and status
// see all of them. It closes the provider when closed.
func newLLM(f *folder) (llm.Completer, string, error) { return newLLMLimited(f, 0) }

// newLLMLimited is newLLM whose calls stop once the day's tokens reach
// limit (0: none): the daemon's jobs, checked before every call.
func newLLMLimited(f *folder, limit int) (llm.Completer, string, error) {
	provider := providerName(f)
	c, err := llm.New(llmOptions(f, provider))
	if err != nil {
		return nil, provider, fmt.Errorf("llm: %w", err)
	}
	counted := cost.NewCounter(c, f.stateDir, f.log).WithDailyLimit(limit)
	if provider == "opencode" && !f.modelResolved {
		return llm.WithResolvedModel(counted, f.cfg.DefaultModels(), func(ctx context.Context) string { return openCodeDefaultModel(ctx, f) }), provider, nil
	}
	return counted, provider, nil
}

// openCodeModel: with the opencode provider and no model configured, the
// jobs use the user's own OpenCode small_model, else its model (the
// built-in default names a model most OpenCode setups do not have). It
// asks OpenCode now (doctor shows the model); newLLM asks only when a job
// first needs it (llm.WithResolvedModel).
func openCodeModel(ctx context.Context, f *folder) {
	if f.cfg.Origin("extract.model").Source != config.FromDefault || f.modelResolved {
		return
	}
	setOpenCodeModel(f, openCodeDefaultModel(ctx, f))
}

// setOpenCodeModel makes m, OpenCode's own model, the model of the jobs
// whose model is not configured; "" changes nothing.
func setOpenCodeModel(f *folder, m string) {
	f.modelResolved = true
	f.cfg.UseModel(m)
}

// openCodeDefaultModel is OpenCode's own model for f's jobs (llm.OpenCodeModel).
func openCodeDefaultModel(ctx context.Context, f *folder) string {
	return llm.OpenCodeModel(ctx, os.Environ(), f.log, f.cfg.Extract.Model)
}

// llmOptions configures the client of provider for f.
func llmOptions(f *folder, provider string) llm.Options {
	return llm.Options{
		Provider: provider,
		BaseURL:  f.cfg.LLM.BaseURL,
		APIKey:   f.cfg.LLM.APIKey,
		Timeout:  f.cfg.LLM.Timeout.D(),
		StateDir: f.stateDir,
		Env:      os.Environ(),
		Logger:   f.log,
	}
}

// needLLM is newLLM for commands that cannot work without a provider;
// done closes the client.
func needLLM(f *folder) (c llm.Completer, done func(), err error) {
	c, provider, err := newLLM(f)
	if err != nil {
		return nil, nil, err
	}
	if provider == "none" {
		return nil, nil, errors.New("no LLM provider configured: set llm.provider (opencode, openai or anthropic) or MEMORY_LLM_PROVIDER")
	}
	return c, func() { closeAll(appendCloser(nil, c)) }, nil
}

// applyDelayEnv is a test hook: milliseconds the compactor pauses before
// each op it applies, so that an end-to-end test can kill the process in
// the middle of applying. Never set it in real use.
const applyDelayEnv = "MEMORYD_TEST_APPLY_DELAY_MS"

// compactorOptions configures the compactor for f: it writes through the
// folder's transaction; who names the process in the locks.
func compactorOptions(f *folder, c llm.Completer, who string) compactor.Options {
	opts := compactor.Options{
		Folder:     f.txn(),
		StateDir:   f.stateDir,
		Who:        who + " (compaction)",
		LLM:        c,
		Model:      f.cfg.Compact.Model,
		Budget:     f.cfg.Compact.Budget,
		MinEntries: f.cfg.Compact.MinEntries,
		Logger:     f.log,
		Hold:       f.compactionHold(),
	}
	if ms, err := strconv.Atoi(f.getenv(applyDelayEnv)); err == nil && ms > 0 {
		opts.OpDelay = time.Duration(ms) * time.Millisecond
	}
	return opts
}

// transcriptLocations resolves where the agents keep their transcripts, from
// the command's environment (HOME, XDG_DATA_HOME, OPENCODE_DB,
// CLAUDE_CONFIG_DIR, CODEX_HOME); extract.opencode_db wins over OPENCODE_DB.
func transcriptLocations(f *folder) transcript.Locations {
	home := f.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	db := f.cfg.Extract.OpenCodeDB // ~/ already expanded by config
	return transcript.DefaultLocations(home, func(k string) string {
		if k == "OPENCODE_DB" && db != "" {
			return db
		}
		return f.getenv(k)
	})
}

// openSources finds the transcript stores. The state folder is skipped as a
// second guard (besides the opencode provider's own database) so that the
// daemon's own LLM sessions are never extracted from.
func openSources(f *folder) *transcript.Sources {
	return transcript.OpenSources(transcriptLocations(f), transcript.Options{
		SkipDirs: []string{f.stateDir},
		Logger:   f.log,
	})
}

// newExtractor builds the extractor: it writes through the folder's
// transaction; who names the process in the write lock.
func newExtractor(f *folder, c llm.Completer, srcs *transcript.Sources, who string) *extractor.Extractor {
	var repo extractor.Repo
	if f.repo != nil {
		repo = f.repo
	}
	now := time.Now()
	first, err := state.FirstRun(f.stateDir, now)
	if err != nil {
		f.log.Warn("cannot read when memoryd first ran for this folder; extracting the sessions active from now on", "err", err)
	}
	since, err := config.Horizon(f.cfg.Extract.Since, first, now)
	if err != nil { // Validate refused it already; a flag's value is checked by its command
		since = first
	}
	home, _ := os.UserHomeDir()
	return extractor.New(extractor.Options{
		Folder:   f.txn(),
		StateDir: f.stateDir,
		Model:    f.cfg.Extract.Model,
		Who:      who,
		Logger:   f.log,
		Review:   f.cfg.Extract.Reviewed,
		Since:    since,
		Exclude:  extractor.SplitExclude(f.cfg.Extract.Exclude, home),
		Hold:     f.extractionHold(),
		Team:     extractionTeam(f.stateDir),
	}, extractor.Deps{LLM: c, Repo: repo, Sources: srcs})
}
