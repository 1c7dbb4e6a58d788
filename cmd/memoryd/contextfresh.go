package main

import (
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
// that starts now: with a daemon that syncs (and answers nudges) and a
// last round older than freshWithin, and not offline, it asks the daemon for a round and
// waits for it up to freshWait (two processes never sync at once). Past
// that bound, or without such a daemon, the session gets what the folder
// holds; the wait is logged. It never fails: the agent starts anyway.
func freshenForSession(e env, cfg config.Config, now time.Time) {
	sd, err := state.Dir(stateHome(e), cfg.MemoryDir)
	if err != nil {
		return
	}
	var st daemon.Status
	if state.ReadJSON(sd, state.StatusFile, &st) != nil || !st.Running || !st.Nudge || !st.Sync.Enabled {
		return
	}
	if last := st.Sync.RoundStartedAt; !st.Sync.Running && now.Sub(last) < freshWithin {
		return
	}
	if !st.Sync.OfflineSince.IsZero() {
		// Offline (a train, a plane): the daemon retries with backoff; a
		// session start does not wait for a remote it cannot reach.
		return
	}
	start := time.Now()
	_, ok := nudgeDaemon(sd, cfg.MemoryDir, true, freshWait)
	e.log.attach(sd)
	log := newLogger(e.logWriter(), cfg.LogLevel).With("component", "context")
	if !ok {
		log.Warn("the sync round asked for at session start did not finish in time; the session gets what the folder holds",
			"waited", time.Since(start).Round(time.Millisecond), "bound", freshWait)
		return
	}
	log.Debug("sync round at session start", "took", time.Since(start).Round(time.Millisecond))
}
