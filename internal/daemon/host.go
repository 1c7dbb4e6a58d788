package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/logfile"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/watcher"
)

// Host keeps a daemon on its memory folder for `memoryd run`: the
// folder's single-instance lock (Lock), the log file in the state folder
// beside standard error (Out), the nudge signal, and the state folder
// itself, recreated when it is deleted under the daemon.
type Host struct {
	Dir      string // the memory folder, real path
	StateDir string
	Log      *slog.Logger
	Out      *logfile.Tee
	Inst     *state.Instance // the lock Lock took
}

// Lock takes the single-instance lock of the memory folder dir (state
// folder stateDir), once the folder is one a daemon may serve (not home,
// not a notes root: folder.Suitable).
func Lock(dir, stateDir, home string) (*state.Instance, error) {
	if err := folder.Suitable(dir, home); err != nil {
		return nil, err
	}
	inst, err := state.LockInstance(stateDir, dir, state.Owner("memoryd run for "+dir))
	if errors.Is(err, state.ErrLocked) {
		return nil, fmt.Errorf("another memoryd is already running for %s: %w", dir, err)
	}
	return inst, err
}

// AttachLog adds the state folder's log file to h.Out; detached (started
// by `memoryd start`), standard error is a file for what it says before
// this point, which nothing rotates: Out then writes to the log file alone.
func (h *Host) AttachLog(detached bool) {
	lf, err := logfile.Open(filepath.Join(h.StateDir, state.LogFile), logfile.DefaultMax)
	if err != nil {
		h.Log.Warn("no log file in the state folder; logging to standard error only", "err", err)
		return
	}
	h.Out.Attach(lf)
	if detached {
		h.Out.Quiet()
	}
}

// LogStarted says in the log what the daemon serves, and its version.
func (h *Host) LogStarted(version string) {
	h.Log.Info("memoryd started", "memory_dir", h.Dir, "state_dir", h.StateDir, "version", version)
	if soft, hard, err := watcher.OpenFileLimit(); err == nil {
		// kqueue (macOS) holds a file open per watched file: say what the
		// limit is, so a store near it is easy to diagnose.
		h.Log.Info("open file limit", "soft", soft, "hard", hard)
	}
}

// Run runs the daemon New(opts, deps) until ctx ends or the instance lock
// is lost (keep), whose error it then returns. NudgeSignal becomes the
// daemon's Nudge.
func (h *Host) Run(ctx context.Context, opts Options, deps Deps) error {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	reset := make(chan struct{}, 1)
	deps.StateReset = reset
	nudge := make(chan os.Signal, 1) // a full channel drops a nudge: they collapse
	signal.Notify(nudge, NudgeSignal)
	defer signal.Stop(nudge)
	deps.Nudge = nudge
	var lost error
	var wg sync.WaitGroup
	wg.Go(func() {
		if lost = h.keep(runCtx, reset); lost != nil {
			stop()
		}
	})
	err := New(opts, deps).Run(runCtx)
	stop()
	wg.Wait()
	if err == nil && lost != nil {
		err = lost
	}
	return err
}

// instanceCheck is how often a running daemon checks that its state
// folder, with the lock file in it, is still there.
const instanceCheck = time.Second

// keep keeps the daemon's single-instance lock and state folder until ctx
// ends: when the state folder was deleted (or its lock file replaced) it
// recreates the folder, locks the new lock file, reopens the log file
// there and tells the daemon on reset, which publishes its status again.
// It returns an error only when another daemon took the lock in the
// meantime, which can happen only where the memory folder itself cannot
// be locked: then this daemon must stop.
func (h *Host) keep(ctx context.Context, reset chan<- struct{}) error {
	t := time.NewTicker(instanceCheck)
	defer t.Stop()
	var failing bool // log a failure once, not every second
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		renewed, err := h.Inst.Keep()
		if errors.Is(err, state.ErrLocked) {
			return fmt.Errorf("the state folder was deleted and another memoryd took this folder's lock meanwhile; stopping this one: %w", err)
		}
		if err != nil {
			if !failing {
				h.Log.Error("cannot recreate the state folder and its lock; retrying", "state_dir", h.StateDir, "err", err)
			}
			failing = true
			continue
		}
		failing = false
		if renewed {
			h.renewed(reset)
		}
	}
}

// renewed reopens the log file in the recreated state folder and tells
// the daemon on reset.
func (h *Host) renewed(reset chan<- struct{}) {
	if lf, lerr := logfile.Open(filepath.Join(h.StateDir, state.LogFile), logfile.DefaultMax); lerr != nil {
		h.Log.Warn("no log file in the recreated state folder; logging to standard error only", "err", lerr)
	} else {
		h.Out.Attach(lf)
	}
	h.Log.Warn("the state folder was deleted under the daemon: recreated it and took the single-instance lock again", "state_dir", h.StateDir)
	select {
	case reset <- struct{}{}:
	default:
	}
}
