package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/memoryd/memoryd/daemon"
	"github.com/memoryd/memoryd/index"
	"github.com/memoryd/memoryd/state"
)

func init() {
	register(&command{
		name:    "run",
		args:    "[--memory-dir DIR] [--config FILE]",
		summary: "Run the daemon in the foreground (the service runs this).",
		run:     runDaemon,
	})
	register(&command{
		name:    "rebuild",
		args:    "[--memory-dir DIR]",
		summary: "Rebuild MEMORY.md once and exit.",
		run:     runRebuild,
	})
}

func runDaemon(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	lock, err := state.TryLock(f.stateDir, state.DaemonLock, state.Owner("memoryd run for "+f.dir))
	if errors.Is(err, state.ErrLocked) {
		return fmt.Errorf("another memoryd is already running for %s: %w", f.dir, err)
	}
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if p := f.gitProblem(); p != "" {
		f.log.Warn(p)
	}
	deps, closers, err := daemonDeps(f)
	defer closeAll(closers)
	if err != nil {
		return err
	}
	f.log.Info("memoryd started", "memory_dir", f.dir, "state_dir", f.stateDir, "version", version())
	err = daemon.New(daemonOptions(f), deps).Run(ctx)
	f.log.Info("memoryd stopped")
	return err
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

func runRebuild(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	if f.repo != nil && f.repo.InOperation() {
		return errors.New("the repository is in the middle of a merge, rebase, cherry-pick or revert; finish it first")
	}
	st := index.NewStore(f.dir)
	w, err := st.Settle()
	if err != nil {
		return err
	}
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
