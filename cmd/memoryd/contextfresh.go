package main

import (
	"context"
	"time"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/state"
)

// freshWithin is how recent the daemon's last sync round may be for an
// agent session to start without asking for another: a few seconds.
const freshWithin = 3 * time.Second

// freshWait bounds what a session start waits for that round.
const freshWait = 1500 * time.Millisecond

// freshenForSession makes what another machine pushed part of the session
// that starts now: with a daemon that syncs (and answers nudges), a last
// round older than freshWithin and the remote not offline, it asks the
// daemon for a round and waits for it up to freshWait (two processes never
// sync at once); with no daemon running and sync on, it runs a round
// itself, bounded alike. Past that bound the session gets what the folder
// holds; the wait is logged. It never fails: the agent starts anyway.
func freshenForSession(e env, g globalFlags, cfg config.Config, now time.Time) {
	sd, err := state.Dir(stateHome(e), cfg.MemoryDir)
	if err != nil {
		return
	}
	if !state.InstanceHeld(sd, cfg.MemoryDir) {
		if cfg.Sync.Enabled {
			roundWithoutDaemon(e, g)
		}
		return
	}
	var st daemon.Status
	if state.ReadJSON(sd, state.StatusFile, &st) != nil || !st.WantsRound(now, freshWithin) {
		return
	}
	start := time.Now()
	_, ok := daemon.Nudge(sd, cfg.MemoryDir, true, freshWait)
	e.log.Attach(sd)
	log := newLogger(e.logWriter(), cfg.LogLevel).With("component", "context")
	if !ok {
		log.Warn("the sync round asked for at session start did not finish in time; the session gets what the folder holds",
			"waited", time.Since(start).Round(time.Millisecond), "bound", freshWait)
		return
	}
	log.Debug("sync round at session start", "took", time.Since(start).Round(time.Millisecond))
}

// roundWithoutDaemon is the session start's round where no daemon runs
// (nothing else syncs then): this process runs one, under the write lock
// like any round, cancelled at freshWait; a cancelled round leaves what it
// had not integrated for the next one, as a killed daemon's does.
func roundWithoutDaemon(e env, g globalFlags) {
	f, err := openFolder(e, g)
	if err != nil || f.repo == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), freshWait)
	defer cancel()
	start := time.Now()
	_, err = newSyncer(f, "memoryd context").Round(ctx)
	log := f.log.With("component", "context")
	if err != nil {
		log.Warn("the sync round at session start did not finish; the session gets what the folder holds",
			"err", err, "took", time.Since(start).Round(time.Millisecond), "bound", freshWait)
		return
	}
	log.Debug("sync round at session start, no daemon running", "took", time.Since(start).Round(time.Millisecond))
}
