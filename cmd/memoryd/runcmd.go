package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/memoryd/memoryd/daemon"
	"github.com/memoryd/memoryd/index"
	"github.com/memoryd/memoryd/state"
	"github.com/memoryd/memoryd/watcher"
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

const daemonLock = "daemon.lock"

func runDaemon(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return usageError{"unexpected arguments: " + fmt.Sprint(args)}
	}
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	lock, err := state.TryLock(f.stateDir, daemonLock, fmt.Sprintf("pid %d, memoryd run for %s", os.Getpid(), f.dir))
	if errors.Is(err, state.ErrLocked) {
		return fmt.Errorf("another memoryd is already running for %s: %w", f.dir, err)
	}
	if err != nil {
		return err
	}
	defer lock.Unlock()

	log := f.log
	if p := f.gitProblem(); p != "" {
		log.Warn(p)
	}
	deps := daemon.Deps{
		Watcher: watcher.New(watcher.Options{Dir: f.dir, Ignore: index.Ignored, RescanInterval: f.cfg.Index.Rescan.D(), Logger: log}),
		Store:   index.NewStore(f.dir),
	}
	if f.repo != nil {
		deps.Git = f.repo
	} else {
		deps.GitProblem = f.gitProblem()
	}
	jobs, err := wireJobs(ctx, f)
	if err != nil {
		return err
	}
	defer jobs.close()
	deps.Compactor, deps.Extraction = jobs.compactor, jobs.extraction
	opts := daemon.Options{
		MemoryDir:     f.dir,
		StateDir:      f.stateDir,
		IndexQuiet:    f.cfg.Index.Debounce.D(),
		CommitQuiet:   f.cfg.Git.CommitDebounce.D(),
		CommitMaxWait: f.cfg.Git.CommitMaxWait.D(),
		Budget:        index.Budget{Lines: f.cfg.Index.MaxLines, Bytes: f.cfg.Index.MaxBytes},
		Compact: daemon.CompactPolicy{
			Enabled:    f.cfg.Compact.Enabled,
			Churn:      f.cfg.Compact.Churn,
			MinEntries: f.cfg.Compact.MinEntries,
			Interval:   f.cfg.Compact.Interval.D(),
			Poll:       f.cfg.Compact.Poll.D(),
		},
		Extract: daemon.ExtractPolicy{Debounce: f.cfg.Extract.Debounce.D()},
		Version: version(),
		Logger:  log,
	}
	log.Info("memoryd started", "memory_dir", f.dir, "state_dir", f.stateDir, "version", version())
	err = daemon.New(opts, deps).Run(ctx)
	log.Info("memoryd stopped")
	return err
}

func runRebuild(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return usageError{"unexpected arguments: " + fmt.Sprint(args)}
	}
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	if f.repo != nil && f.repo.InOperation() {
		return errors.New("the repository is in the middle of a merge, rebase, cherry-pick or revert; finish it first")
	}
	st := index.NewStore(f.dir)
	if err := st.Scan(); err != nil {
		return err
	}
	changed, err := st.WriteIndex()
	if err != nil {
		return err
	}
	snap := st.Snapshot()
	for _, u := range snap.Unreadable {
		fmt.Fprintf(e.stderr, "unreadable: %v\n", u.Err)
	}
	word := "unchanged"
	if changed {
		word = "written"
	}
	fmt.Fprintf(e.stdout, "MEMORY.md %s: %d memories, %d unreadable\n", word, len(snap.Memories), len(snap.Unreadable))
	return nil
}
