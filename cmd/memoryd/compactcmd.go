package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/compactor"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/undo"
)

type compactOptions struct {
	*app
	dryRun, force, json bool
}

func newCmdCompact(a *app) *cobra.Command {
	o := &compactOptions{app: a}
	cmd := &cobra.Command{
		Use:   "compact [--dry-run] [--force]",
		Short: "Run one compaction pass now (takes the write lock).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runCompact(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "ask the model and print the validated plan; change nothing, commit nothing")
	cmd.Flags().BoolVar(&o.force, "force", false, "run even when compaction is disabled (compact.enabled), the folder has fewer files than compact.min_entries, or unattended passes removed as much as a day allows")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON: the pass's requests, ops applied and skipped, commits (no progress)")
	return cmd
}

type undoOptions struct {
	*app
	force  bool
	commit string
}

func newCmdUndo(a *app) *cobra.Command {
	o := &undoOptions{app: a}
	cmd := &cobra.Command{
		Use:   "undo [--force] [COMMIT]",
		Short: "Take back memoryd's last commit (or COMMIT): an extraction, an add, edit or forget, a compaction, … as a new commit.",
		Args:  argsAtMost(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.commit = args[0]
			}
			return runUndo(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.force, "force", false, "undo even when later changes touched the same files (they are replaced, and stay in history)")
	return cmd
}

// runCompact is `memoryd compact`. --force overrides compact.enabled and
// compact.min_entries (a pass still needs two files); it never overrides
// the repository, lock, busy and plan checks.
func runCompact(ctx context.Context, o *compactOptions) error {
	e, dry := o.env, o.dryRun
	f, err := compactFolder(o)
	if err != nil {
		return err
	}
	client, done, err := needLLM(f)
	if err != nil {
		return err
	}
	defer done()
	out := e.stdout
	if o.json {
		out = io.Discard
	}
	res, err := compactPass(ctx, f, client, o, out)
	compactor.PrintResult(out, res, err)
	if !dry && (err == nil || errors.Is(err, compactor.ErrNothingToDo)) {
		// The daemon's triggers start counting again from this pass.
		if _, serr := state.UpdateCompaction(f.stateDir, time.Now(), state.RecordPass(time.Now())); serr != nil {
			f.log.Warn("record the compaction pass", "err", serr)
		}
	}
	if o.json {
		if werr := writeJSON(e.stdout, compactor.NewReport(dry, res, err)); werr != nil {
			return werr
		}
	}
	return compactError(err)
}

// compactFolder opens the folder compact writes: compaction on (or
// --force), a repository unless it is a dry run.
func compactFolder(o *compactOptions) (*folder, error) {
	f, err := openFolder(o.env, o.global)
	if err != nil {
		return nil, err
	}
	if !f.cfg.Compact.Enabled && !o.force {
		return nil, errors.New("compaction is disabled (compact.enabled / MEMORY_COMPACT_ENABLED); run with --force to compact anyway")
	}
	if f.repo == nil && !o.dryRun {
		return nil, fmt.Errorf("%w; %s", compactor.ErrNoGit, f.gitProblem())
	}
	return f, nil
}

// compactPass runs one pass, or plans it with --dry-run, its progress on out.
func compactPass(ctx context.Context, f *folder, client llm.Completer, o *compactOptions, out io.Writer) (*compactor.Result, error) {
	prog := newProgress(out, "compacting: ")
	defer prog.clear()
	c := compactor.New(commandCompactorOptions(f, client, o.force, prog))
	if o.dryRun {
		return c.Plan(ctx)
	}
	return c.Compact(ctx)
}

// commandCompactorOptions are the compactor's options for `memoryd
// compact`: --force lifts compact.min_entries and the rolling day's bound,
// and each request to the model shows as progress.
func commandCompactorOptions(f *folder, client llm.Completer, force bool, prog *progress) compactor.Options {
	opts := compactorOptions(f, client, "memoryd compact")
	if force {
		opts.MinEntries, opts.Force = 0, true
	}
	opts.Progress = func(batch, batches, tokens int) {
		prog.step("request %d of %d to the model, %d tokens so far", batch, batches, tokens)
	}
	return opts
}

// compactError is what `memoryd compact` says of a pass's error.
func compactError(err error) error {
	switch {
	case errors.Is(err, compactor.ErrNothingToDo):
		return nil
	case errors.Is(err, state.ErrLocked):
		return fmt.Errorf("another compaction or commit is running for this folder, try again later: %w", err)
	}
	return err
}

// runUndo is `memoryd undo [--force] [COMMIT]`: the most recent (or the
// given) memoryd commit is taken back as a new commit (see package undo).
func runUndo(ctx context.Context, o *undoOptions) error {
	e := o.env
	f, err := repoFolder(e, o.global)
	if err != nil {
		return err
	}
	opts := undo.Options{Folder: f.txn(), Force: o.force, Commit: o.commit}
	res, err := undo.Run(ctx, opts)
	switch {
	case errors.Is(err, state.ErrLocked):
		return fmt.Errorf("another compaction or commit is running for this folder, try again later: %w", err)
	case errors.Is(err, undo.ErrNothingToUndo):
		fmt.Fprintln(e.stdout, err)
		return nil
	case res.Commit == "":
		return err
	}
	res.Print(e.stdout)
	return err
}
