package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/memoryd/memoryd/daemon"
	"github.com/memoryd/memoryd/llm"
)

// jobs are the LLM-backed parts of the daemon, wired from the configuration.
type jobs struct {
	compactor  daemon.Compactor
	extraction *daemon.Extraction
	closers    []io.Closer
}

func (j *jobs) close() {
	for _, c := range j.closers {
		c.Close()
	}
}

// wireJobs builds the compactor and the extraction pipeline; either is nil
// when turned off or impossible (no LLM provider, no repository).
func wireJobs(ctx context.Context, f *folder) (*jobs, error) {
	j := &jobs{}
	if !f.cfg.Compact.Enabled && !f.cfg.Extract.Enabled {
		return j, nil
	}
	if f.repo == nil {
		f.log.Warn("compaction and extraction are off: " + f.gitProblem())
		return j, nil
	}
	client, provider, err := newLLM(f)
	if err != nil {
		return nil, err
	}
	if provider == "none" {
		f.log.Info("no LLM provider: compaction and extraction are off (set llm.provider)")
		return j, nil
	}
	if c, ok := client.(io.Closer); ok {
		j.closers = append(j.closers, c)
	}
	if f.cfg.Compact.Enabled {
		j.compactor = compactJob{newCompactor(f, client)}
	}
	if f.cfg.Extract.Enabled {
		x, closers, err := newExtraction(f, client)
		if err != nil {
			return nil, err
		}
		j.extraction = x
		j.closers = append(j.closers, closers...)
	}
	return j, nil
}

// providerName resolves the configured provider: "" means opencode when it
// is on PATH, else none.
func providerName(f *folder) string {
	if p := f.cfg.LLM.Provider; p != "" {
		return p
	}
	if _, err := exec.LookPath("opencode"); err == nil {
		return "opencode"
	}
	return "none"
}

// newLLM builds the configured LLM client.
func newLLM(f *folder) (llm.Completer, string, error) {
	provider := providerName(f)
	c, err := llm.New(llm.Options{
		Provider: provider,
		BaseURL:  f.cfg.LLM.BaseURL,
		APIKey:   f.cfg.LLM.APIKey,
		Timeout:  f.cfg.LLM.Timeout.D(),
		StateDir: f.stateDir,
		Env:      os.Environ(),
		Logger:   f.log,
	})
	if err != nil {
		return nil, provider, fmt.Errorf("llm: %w", err)
	}
	return c, provider, nil
}

// needLLM is newLLM for commands that cannot work without a provider.
func needLLM(f *folder) (llm.Completer, error) {
	c, provider, err := newLLM(f)
	if err != nil {
		return nil, err
	}
	if provider == "none" {
		return nil, errors.New("no LLM provider configured: set llm.provider (opencode, openai or anthropic) or MEMORY_LLM_PROVIDER")
	}
	return c, nil
}
