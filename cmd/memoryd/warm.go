package main

import (
	"context"
	"errors"
	"syscall"

	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/warm"
)

// This file connects the readers (search, recall, the MCP server) to the
// daemon's warm search index, and the daemon to its socket (package warm).

// warmServer is the daemon's answering of searches from x, its search
// index: the daemon syncs x through it and runs it.
func warmServer(f *folder, x *search.Index) *warm.Server {
	return warm.New(warm.Options{StateDir: f.stateDir, MemoryDir: f.dir, Version: build().Build(), Logger: f.log}, x)
}

// askWarm asks the running daemon for q's hits. ok is false when there is
// no daemon to answer (warm.ErrUnavailable): the caller searches by itself.
// A daemon that listens but does not answer is logged at debug level; no
// daemon at all (no socket, nobody listening) is the usual case and says
// nothing, so that a hook prints nothing on its standard error.
func askWarm(ctx context.Context, f *folder, q search.Query) (hits []search.Hit, ok bool, err error) {
	q.Fusion = f.cfg.Embed.Fusion // this process's setting, not the daemon's
	hits, err = warm.Ask(ctx, f.stateDir, f.dir, build().Build(), q)
	if errors.Is(err, warm.ErrUnavailable) {
		if !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.ECONNREFUSED) {
			f.log.Debug("searching without the daemon", "why", err)
		}
		return nil, false, nil
	}
	return hits, true, err
}

// findHits is q's hits from the daemon's warm index, else from the search
// index opened here (search.FindOrScan, which reports to onFallback when it
// answered from the files). Either way the caller gates what it shows.
func findHits(ctx context.Context, f *folder, q search.Query, onFallback func(error)) ([]search.Hit, error) {
	if hits, ok, err := askWarm(ctx, f, q); ok {
		return hits, err
	}
	q.Embedder, q.Fusion = embedder(f), f.cfg.Embed.Fusion
	if c, ok := q.Embedder.(interface{ Wait() }); ok {
		defer c.Wait() // its query's tokens recorded before the process ends
	}
	return search.FindOrScan(ctx, f.stateDir, f.dir, q, onFallback)
}
