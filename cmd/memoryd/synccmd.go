package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/gitsync"
)

type syncOptions struct {
	*app
	json, takeRemote bool
}

func newCmdSync(a *app) *cobra.Command {
	o := &syncOptions{app: a}
	cmd := &cobra.Command{
		Use:   "sync [--take-remote] [--json]",
		Short: "Sync the memory with the notes repository's git remote now: pull, push, and say what was left for review.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runSync(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&o.takeRemote, "take-remote", false, "after the remote's history was rewritten: take it, keeping facts only this machine has for review")
	return cmd
}

// newSyncer is the folder's sync with its remote (sync.remote); who names
// the process in the write lock.
func newSyncer(f *folder, who string) *gitsync.Syncer {
	return gitsync.New(gitsync.Options{Folder: f.txn(), Remote: f.cfg.Sync.Remote, Who: who, Getenv: f.getenv, StateDir: f.stateDir, Logger: f.log})
}

func runSync(ctx context.Context, o *syncOptions) error {
	e := o.env
	f, err := repoFolder(e, o.global)
	if err != nil {
		return err
	}
	if _, err := f.needRepo(); err != nil {
		return err
	}
	s := newSyncer(f, "memoryd sync")
	res, err := s.TakeRemoteRound(ctx, o.takeRemote)
	// The running daemon runs a round after this one, so that its status
	// says what this round did (memoryd status never contradicts it).
	daemon.Nudge(f.stateDir, f.dir, true, syncAnswerWait)
	r := gitsync.Report{Result: res, Enabled: f.cfg.Sync.Enabled}
	if err != nil {
		r.Error = err.Error()
	}
	if o.json {
		if werr := writeJSON(e.stdout, r); werr != nil {
			return werr
		}
		if err != nil {
			return exitError{code: exitFail}
		}
		return nil
	}
	r.Print(e.stdout)
	if err != nil {
		return gitsync.Failure(err, res)
	}
	return nil
}

// syncAnswerWait bounds how long memoryd sync waits for the daemon's round
// after its own: a fetch that finds nothing new.
const syncAnswerWait = 5 * time.Second
