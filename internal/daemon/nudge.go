package daemon

import (
	"syscall"
	"time"

	"github.com/memoryd/memoryd/internal/state"
)

// NudgeSignal is how a command nudges the daemon (Deps.Nudge, Nudge).
const NudgeSignal = syscall.SIGUSR1

// nudgePoll is how often a nudging command re-reads status.json.
const nudgePoll = 10 * time.Millisecond

// Nudge asks the daemon that serves memoryDir (state folder
// stateDir) for its status now and, with sync on, for a sync round, and
// waits up to wait: for a round that started after the request when
// round is set and the daemon syncs, else for the status it publishes at
// once. It returns the daemon's status and whether it answered within
// wait; ok is false at once when no daemon runs or it does not answer
// nudges (one of an older memoryd, which the signal would kill).
func Nudge(stateDir, memoryDir string, round bool, wait time.Duration) (st Status, ok bool) {
	pid := state.InstancePID(stateDir, memoryDir)
	if pid <= 0 || state.ReadJSON(stateDir, state.StatusFile, &st) != nil || st.PID != pid || !st.Nudge {
		return st, false
	}
	round = round && st.Sync.Enabled
	asked := time.Now()
	if syscall.Kill(pid, NudgeSignal) != nil {
		return st, false
	}
	deadline := asked.Add(wait)
	for {
		var now Status
		if state.ReadJSON(stateDir, state.StatusFile, &now) == nil && now.PID == pid {
			st = now
			if round && !st.Sync.RoundStartedAt.Before(asked) || !round && !st.UpdatedAt.Before(asked) {
				return st, true
			}
		}
		if time.Now().After(deadline) {
			return st, false
		}
		time.Sleep(nudgePoll)
	}
}

// WantsRound reports whether a session starting at now should ask the
// daemon whose status is st for a sync round: it runs, syncs and answers
// nudges, its last round started more than within ago (or one runs now),
// and the remote is not offline (a train, a plane: the daemon retries
// with backoff, and a session start does not wait for a remote it cannot
// reach).
func (st *Status) WantsRound(now time.Time, within time.Duration) bool {
	if !st.Running || !st.Nudge || !st.Sync.Enabled {
		return false
	}
	if !st.Sync.Running && now.Sub(st.Sync.RoundStartedAt) < within {
		return false
	}
	return st.Sync.OfflineSince.IsZero()
}
