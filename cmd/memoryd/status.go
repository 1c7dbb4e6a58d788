package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/status"
)

func newCmdStatus(a *app) *cobra.Command {
	o := &jsonOptions{app: a}
	cmd := &cobra.Command{
		Use:   "status [--json]",
		Short: "Show the daemon's state: last rebuild and commit, churn, compaction, sessions, problems (exit 3: not running).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runStatus(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the report as JSON, with absolute times")
	return cmd
}

func runStatus(ctx context.Context, o *jsonOptions) error {
	e := o.env
	f, err := openFolder(e, o.global)
	if err != nil {
		return err
	}
	now := time.Now()
	r := status.Build(ctx, status.Input{Folder: f.statusFolder(), Service: lookupService(ctx, e),
		Held: append(f.gate().HeldIn(f.dir), teamHeldProblems(f, workDir())...), Unused: unusedProposal(f, now)}, now)
	if o.json {
		if err := writeJSON(e.stdout, r); err != nil {
			return err
		}
	} else {
		status.Print(e.stdout, r, now)
	}
	if !r.Running {
		return exitError{code: exitNotRunning}
	}
	return nil
}

// statusFolder is what status reads of f.
func (f *folder) statusFolder() status.Folder {
	return status.Folder{Dir: f.dir, StateDir: f.stateDir, ConfigPath: f.cfgPath, Config: f.cfg,
		Repo: f.repo, GitProblem: f.gitProblem(), Provider: providerName(f)}
}

// runLine is the `memoryd run` command line that starts a daemon for f.
func runLine(f *folder) string { return status.RunLine(f.cfg, f.dir) }

// lookupService asks the service manager about the memoryd service.
func lookupService(ctx context.Context, e env) status.Service {
	o, err := installOptions(e, globalFlags{}, "")
	if err != nil {
		return status.Service{Err: err}
	}
	o.Binary = "" // do not compare the unit with this binary
	st, err := install.Status(ctx, o)
	return status.Service{Options: o, Status: st, Err: err}
}
