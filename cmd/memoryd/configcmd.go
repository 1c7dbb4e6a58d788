package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/doctor"
)

// jsonOptions are the options of a command whose one flag is --json.
type jsonOptions struct {
	*app
	json bool
}

func newCmdConfig(a *app) *cobra.Command {
	o := &jsonOptions{app: a}
	cmd := &cobra.Command{
		Use:   "config [--json]",
		Short: "Print the effective configuration and where each value comes from (default, file:line, env, flag).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runConfig(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print as JSON")
	return cmd
}

// runConfig is `memoryd config`, like `git config --list --show-origin`:
// every key's effective value after the file, environment and flags, and
// where it came from. An invalid configuration is printed too, as far as
// it could be read; then the command fails with its problems.
func runConfig(ctx context.Context, o *jsonOptions) error {
	e := o.env
	cfg, _, invalid := readConfig(e, o.global)
	if invalid == nil {
		if err := cfg.Validate(); err != nil {
			invalid = configError{err}
		}
	}
	var problems error // one a line
	if invalid != nil {
		problems = errors.Unwrap(invalid)
	}
	r := cfg.Report(problems)
	doctor.ExplainEffective(ctx, cfg, r.Settings)
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		config.PrintReport(e.stdout, r)
	}
	return invalid
}
