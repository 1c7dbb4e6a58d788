package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/logfile"
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
	inst, err := daemon.Lock(f.dir, f.stateDir, e.getenv("HOME"))
	if err != nil {
		return err
	}
	defer inst.Unlock()
	defer out.Close()
	defer func() { out.Failed(err) }()
	h := &daemon.Host{Dir: f.dir, StateDir: f.stateDir, Log: f.log, Out: out, Inst: inst}
	h.AttachLog(e.getenv(install.DetachedEnv) == "1")
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
	h.LogStarted(version())
	err = h.Run(ctx, daemonOptions(f), deps)
	f.log.Info("memoryd stopped")
	return err
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
