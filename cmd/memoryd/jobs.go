package main

import (
	"context"

	"github.com/memoryd/memoryd/daemon"
)

// jobs are the LLM-backed parts of the daemon, wired from the configuration.
type jobs struct {
	compactor  daemon.Compactor
	extraction *daemon.Extraction
	closers    []func() error
}

func (j *jobs) close() {
	for _, c := range j.closers {
		c()
	}
}

// wireJobs builds the compactor and the extraction pipeline; either is nil
// when turned off or impossible (no LLM provider, no repository).
func wireJobs(ctx context.Context, f *folder) (*jobs, error) {
	return &jobs{}, nil
}

// serviceState describes the installed service, or "" when unknown.
func serviceState(e env) string { return "" }
