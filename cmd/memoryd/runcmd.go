package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/daemon"
	memfolder "github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/logfile"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/watcher"
)

func newCmdRun(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "run [--memory-dir DIR] [--config FILE]",
		Short: "Run the daemon in the foreground (the service runs this).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runDaemon(cmd.Context(), a) },
	}
}

func newCmdRebuild(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rebuild [--memory-dir DIR]",
		Short: "Rebuild MEMORY.md once and exit.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runRebuild(cmd.Context(), a) },
	}
}

func runDaemon(ctx context.Context, a *app) (err error) {
	e := a.env
	out := logfile.NewTee(e.stderr)
	e.stderr, e.log = out, nil // the daemon logs to standard error and its own log file
	f, err := openFolder(e, a.global)
	if err != nil {
		return err
	}
	inst, err := lockDaemon(f, e.getenv("HOME"))
	if err != nil {
		return err
	}
	defer inst.Unlock()
	defer out.Close()
	defer func() { out.Failed(err) }()
	attachLog(f, out, e.getenv(install.DetachedEnv) == "1")
	if ferr := inst.FolderErr(); ferr != nil {
		f.log.Warn("the single-instance lock rests on the state folder alone: deleting it under the daemon lets a second one start", "err", ferr)
	}
	if p := f.gitProblem(); p != "" {
		f.log.Warn(p)
	}
	deps, closers, err := daemonDeps(f)
	defer closeAll(closers)
	if err != nil {
		return err
	}
	logStarted(f)
	err = runLocked(ctx, f, inst, out, deps)
	f.log.Info("memoryd stopped")
	return err
}

// lockDaemon takes the folder's single-instance lock, once the folder is
// one a daemon may serve (not home, not a notes root).
func lockDaemon(f *folder, home string) (*state.Instance, error) {
	if err := memfolder.Suitable(f.dir, home); err != nil {
		return nil, err
	}
	inst, err := state.LockInstance(f.stateDir, f.dir, state.Owner("memoryd run for "+f.dir))
	if errors.Is(err, state.ErrLocked) {
		return nil, fmt.Errorf("another memoryd is already running for %s: %w", f.dir, err)
	}
	return inst, err
}

// attachLog adds the state folder's log file to out; detached (started by
// `memoryd start`), standard error is a file for what it says before this
// point, which nothing rotates: out then writes to the log file alone.
func attachLog(f *folder, out *logfile.Tee, detached bool) {
	lf, err := logfile.Open(filepath.Join(f.stateDir, state.LogFile), logfile.DefaultMax)
	if err != nil {
		f.log.Warn("no log file in the state folder; logging to standard error only", "err", err)
		return
	}
	out.Attach(lf)
	if detached {
		out.Quiet()
	}
}

// logStarted says in the log what the daemon serves.
func logStarted(f *folder) {
	f.log.Info("memoryd started", "memory_dir", f.dir, "state_dir", f.stateDir, "version", version())
	if soft, hard, err := watcher.OpenFileLimit(); err == nil {
		// kqueue (macOS) holds a file open per watched file: say what the
		// limit is, so a store near it is easy to diagnose.
		f.log.Info("open file limit", "soft", soft, "hard", hard)
	}
}

// runLocked runs the daemon until ctx ends or the instance lock is lost
// (keepInstance), whose error it then returns.
func runLocked(ctx context.Context, f *folder, inst *state.Instance, out *logfile.Tee, deps daemon.Deps) error {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	reset := make(chan struct{}, 1)
	deps.StateReset = reset
	nudge := make(chan os.Signal, 1) // a full channel drops a nudge: they collapse
	signal.Notify(nudge, nudgeSignal)
	defer signal.Stop(nudge)
	deps.Nudge = nudge
	var lost error
	var wg sync.WaitGroup
	wg.Go(func() {
		if lost = keepInstance(runCtx, f, inst, out, reset); lost != nil {
			stop()
		}
	})
	err := daemon.New(daemonOptions(f), deps).Run(runCtx)
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

// keepInstance keeps the daemon's single-instance lock and state folder
// until ctx ends: when the state folder was deleted (or its lock file
// replaced) it recreates the folder, locks the new lock file, reopens the
// log file there and tells the daemon on reset, which publishes its status
// again. It returns an error only when another daemon took the lock in the
// meantime, which can happen only where the memory folder itself cannot be
// locked: then this daemon must stop.
func keepInstance(ctx context.Context, f *folder, inst *state.Instance, out *logfile.Tee, reset chan<- struct{}) error {
	t := time.NewTicker(instanceCheck)
	defer t.Stop()
	var failing bool // log a failure once, not every second
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		renewed, err := inst.Keep()
		if errors.Is(err, state.ErrLocked) {
			return fmt.Errorf("the state folder was deleted and another memoryd took this folder's lock meanwhile; stopping this one: %w", err)
		}
		if err != nil {
			if !failing {
				f.log.Error("cannot recreate the state folder and its lock; retrying", "state_dir", f.stateDir, "err", err)
			}
			failing = true
			continue
		}
		failing = false
		if !renewed {
			continue
		}
		if lf, lerr := logfile.Open(filepath.Join(f.stateDir, state.LogFile), logfile.DefaultMax); lerr != nil {
			f.log.Warn("no log file in the recreated state folder; logging to standard error only", "err", lerr)
		} else {
			out.Attach(lf)
		}
		f.log.Warn("the state folder was deleted under the daemon: recreated it and took the single-instance lock again", "state_dir", f.stateDir)
		select {
		case reset <- struct{}{}:
		default:
		}
	}
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

func runRebuild(ctx context.Context, a *app) error {
	e := a.env
	f, err := openFolder(e, a.global)
	if err != nil {
		return err
	}
	if f.repo != nil {
		if b, busy := f.repo.Operation(); busy {
			return fmt.Errorf("%s: memoryd writes nothing until it is over; %s", b.Reason, b.Fix)
		}
	}
	st := newStore(f)
	st.Rechoose() // a person asked: past the budget, choose with today's usage counts
	w, err := st.Settle()
	if err != nil {
		return err
	}
	f.txn().SaveVerdicts()
	snap := st.Snapshot()
	for _, u := range snap.Unreadable {
		fmt.Fprintf(e.stderr, "unreadable: %v\n", u.Err)
	}
	word := "unchanged"
	if w.Changed {
		word = "written"
	}
	fmt.Fprintf(e.stdout, "MEMORY.md %s: %d memories, %d unreadable\n", word, len(snap.Memories), len(snap.Unreadable))
	return nil
}
