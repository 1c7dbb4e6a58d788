package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/logfile"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/watcher"
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

func runDaemon(ctx context.Context, e env, fs *flag.FlagSet, args []string) (err error) {
	out := &daemonLog{w: e.stderr}
	e.stderr = out
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
	if lf, lerr := logfile.Open(filepath.Join(f.stateDir, state.LogFile), logfile.DefaultMax); lerr != nil {
		f.log.Warn("no log file in the state folder; logging to standard error only", "err", lerr)
	} else {
		out.attach(lf)
		defer lf.Close()
		defer func() { out.failed(err) }()
	}
	if p := f.gitProblem(); p != "" {
		f.log.Warn(p)
	}
	deps, closers, err := daemonDeps(f)
	defer closeAll(closers)
	if err != nil {
		return err
	}
	f.log.Info("memoryd started", "memory_dir", f.dir, "state_dir", f.stateDir, "version", version())
	if soft, hard, err := watcher.OpenFileLimit(); err == nil {
		// kqueue (macOS) holds a file open per watched file: say what the
		// limit is, so a store near it is easy to diagnose.
		f.log.Info("open file limit", "soft", soft, "hard", hard)
	}
	err = daemon.New(daemonOptions(f), deps).Run(ctx)
	f.log.Info("memoryd stopped")
	return err
}

// daemonLog is where `memoryd run` logs: standard error, and from the moment
// the instance lock is held the size-bounded log file in the state folder
// too, whether it runs as a service or by hand, so that `memoryd logs`
// always has something to show. The logger is built (and handed to git)
// before the state folder is known, so the file joins the writer, not a new
// logger. slog writes each record with one Write, so records stay whole.
type daemonLog struct {
	mu   sync.Mutex
	w    io.Writer
	file *logfile.File
}

func (d *daemonLog) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.file != nil {
		d.file.Write(p) // a full disk must not stop the daemon; stderr still has it
	}
	return d.w.Write(p)
}

func (d *daemonLog) attach(f *logfile.File) {
	d.mu.Lock()
	d.file = f
	d.mu.Unlock()
}

// failed writes the error that ends `memoryd run` to the log file: the
// command line prints it on standard error only, and a service that keeps
// failing is looked into with `memoryd logs`.
func (d *daemonLog) failed(err error) {
	if err == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.file != nil {
		slog.New(slog.NewTextHandler(d.file, nil)).Error("memoryd run failed", "err", err)
	}
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
	if f.repo != nil {
		if b, busy := f.repo.Operation(); busy {
			return fmt.Errorf("%s: memoryd writes nothing until it is over; %s", b.Reason, b.Fix)
		}
	}
	st := newStore(f)
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
