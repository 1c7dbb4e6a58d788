package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
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

// syncReport is what `memoryd sync --json` prints.
type syncReport struct {
	gitsync.Result
	Enabled bool   `json:"enabled"` // sync.enabled: whether the daemon syncs by itself
	Error   string `json:"error,omitempty"`
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
	res, err := takeRemote(ctx, s, o.takeRemote)
	// The running daemon runs a round after this one, so that its status
	// says what this round did (memoryd status never contradicts it).
	daemon.Nudge(f.stateDir, f.dir, true, syncAnswerWait)
	r := syncReport{Result: res, Enabled: f.cfg.Sync.Enabled}
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
	printSync(e.stdout, r)
	if err != nil {
		return syncFailure(err, res)
	}
	return nil
}

// takeRemote is a round, after taking the remote's history when take is
// set (the round then pushes what was kept for review).
func takeRemote(ctx context.Context, s *gitsync.Syncer, take bool) (gitsync.Result, error) {
	if !take {
		return s.Round(ctx)
	}
	taken, err := s.TakeRemote(ctx)
	if err != nil {
		return taken, err
	}
	res, err := s.Round(ctx)
	res.Review = append(taken.Review, res.Review...)
	return res, err
}

// syncAnswerWait bounds how long memoryd sync waits for the daemon's round
// after its own: a fetch that finds nothing new.
const syncAnswerWait = 5 * time.Second

// syncFailure is the error a failed round ends the command with.
func syncFailure(err error, res gitsync.Result) error {
	switch {
	case errors.Is(err, gitsync.ErrPaused) && res.Paused != "":
		return errors.New("paused: " + res.Paused)
	case errors.Is(err, gitsync.ErrOffline):
		return fmt.Errorf("%w; your commits stay here (%d ahead) and go out at the next sync", err, res.Ahead)
	}
	return err
}

// printSync says what a round pulled, pushed and left for review.
func printSync(w io.Writer, r syncReport) {
	if r.Target == "" {
		return
	}
	fmt.Fprintf(w, "remote         %s\n", r.Target)
	fmt.Fprintf(w, "pulled         %s\n", commits(r.Pulled))
	fmt.Fprintf(w, "pushed         %s\n", commits(r.Pushed))
	if len(r.Review) > 0 {
		fmt.Fprintf(w, "for review     %s (changed on both machines: the remote's version stays, this one's waits; memoryd review)\n", strings.Join(r.Review, ", "))
	}
	fmt.Fprintf(w, "now            %d ahead, %d behind\n", r.Ahead, r.Behind)
	if !r.Enabled {
		fmt.Fprintln(w, "sync.enabled is off: the daemon does not sync by itself (set sync.enabled: true or MEMORY_SYNC_ENABLED=1)")
	}
}

func commits(n int) string {
	if n == 1 {
		return "1 commit"
	}
	return fmt.Sprintf("%d commits", n)
}
