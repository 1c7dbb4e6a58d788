package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
)

type checkOptions struct {
	*app
	scopeOptions
	confirm string
}

func newCmdCheck(a *app) *cobra.Command {
	o := &checkOptions{app: a}
	cmd := &cobra.Command{
		Use:   "check [--project=SLUG] [--all] [--type=T] [--json] [--confirm=NAME]",
		Short: "List the facts whose cited files changed or are gone (exit 1 when any); --confirm NAME records the files' versions now, or lets out a fact held from agents.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runCheck(cmd.Context(), o) },
	}
	scopeFlags(cmd, a, &o.scopeOptions)
	cmd.Flags().StringVar(&o.confirm, "confirm", "", "the fact (`NAME` or file) whose cited files still bear it out: record their versions now and commit; or a fact held from agents as a planted instruction that is yours: let it out")
	cmd.RegisterFlagCompletionFunc("confirm", func(_ *cobra.Command, _ []string, s string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return factNames(a, s), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// checkJSON is what `memoryd check --json` prints (docs/JSON.md).
// runCheck compares the cites of the facts in scope with the files now.
// Its exit status is 1 when a fact may be stale, so a script or a CI job
// can act; nothing is changed unless --confirm names a fact.
func runCheck(ctx context.Context, o *checkOptions) error {
	e := o.env
	if name := o.confirm; name != "" {
		f, w, err := factWriter(e, o.global)
		if err != nil {
			return err
		}
		if more, err := confirmPlanted(ctx, e, f, name); err != nil || !more {
			return err
		}
		d, err := w.Confirm(ctx, name)
		if err != nil {
			return factError(err)
		}
		printDone(e.stdout, f, d)
		return nil
	}
	f, err := readFolder(e, o.global)
	if err != nil {
		return err
	}
	snap, err := index.Scan(f.dir)
	if err != nil {
		return err
	}
	out := teamCheck(o.check(snap), workDir(), o.typ)
	if o.json {
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		out.Print(e.stdout)
	}
	if len(out.Stale) > 0 {
		return exitError{code: exitFail}
	}
	return nil
}

// check compares the cites of the facts in scope with the files now.
func (o *checkOptions) check(snap index.Snapshot) cite.Report {
	slug, all, typ := o.scope(), o.all, o.typ
	return cite.NewChecker(workDir()).CheckAll(snap, func(m *index.Memory) bool {
		return (all || m.Project == "" || m.Project == slug) && (typ == "" || m.Type == typ)
	})
}
