package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/doctor"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/state"
)

type doctorOptions struct {
	*app
	llm, fresh, json bool
}

func newCmdDoctor(a *app) *cobra.Command {
	o := &doctorOptions{app: a}
	cmd := &cobra.Command{
		Use:   "doctor [--llm] [--fresh] [--json]",
		Short: "Check the setup; print each problem with the command that fixes it (exit 1 if any).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.llm, "llm", false, "also make one tiny real call to the model and report its latency and tokens")
	cmd.Flags().BoolVar(&o.fresh, "fresh", false, "ask the model provider again instead of using the answer doctor kept for a day")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON: every check with its state, note, problem and fix")
	return cmd
}

func runDoctor(ctx context.Context, opts *doctorOptions) error {
	e := opts.env
	o, done := doctorChecks(opts)
	defer done()
	findings := doctor.Run(ctx, o)
	if o.InstallErr == nil {
		findings = append(findings, doctor.HookFindings(ctx, o.Install)...)
	}
	n := doctor.Problems(findings)
	if opts.json {
		if err := writeJSON(e.stdout, doctor.NewReport(findings)); err != nil {
			return err
		}
	} else {
		doctor.Print(e.stdout, findings)
		if n == 0 {
			fmt.Fprintln(e.stdout, "everything looks fine")
		}
	}
	if n > 0 {
		return fmt.Errorf("%d problem(s) found", n)
	}
	return nil
}

// doctorChecks resolves what the checks look at; done releases what it
// opened (transcript stores, a live LLM client).
func doctorChecks(opts *doctorOptions) (doctor.Options, func()) {
	e := opts.env
	o := doctor.Options{
		User:        e.getenv("USER"),
		OpenCodeDir: install.OpenCodeDir(e.getenv("HOME"), e.getenv("XDG_CONFIG_HOME")),
	}
	o.Install, o.InstallErr = installOptions(e, globalFlags{}, "")
	f, err := openFolder(e, opts.global)
	if err != nil {
		o.FolderErr = err
		return o, func() {}
	}
	var closers []io.Closer
	o.Dir, o.ConfigPath, o.Repo, o.RepoErr = f.dir, f.cfgPath, f.repo, f.repoErr
	o.Running, o.StateDir = state.InstanceHeld(f.stateDir, f.dir), f.stateDir
	o.Held = f.gate().HeldNotes
	o.TeamHeld = func() []string { return teamHeld(f, workDir()) }
	o.Provider = providerName(f)
	if !opts.fresh {
		if mc, ok := doctor.LoadModelCheck(f.stateDir, doctor.ModelCheckKey(o.Provider, f.cfg, os.Environ()), time.Now()); ok {
			o.Cached = &mc
		}
	}
	doctorOpenCodeModel(f, &o)
	o.Config, o.LLM = f.cfg, llmOptions(f, o.Provider)
	o.Sync = doctor.ReadSync(context.Background(), f.repo, f.cfg.Sync.Remote, f.stateDir, f.cfg.Sync.Enabled, time.Now())
	if opts.llm && o.Provider != "none" {
		if c, _, err := newLLM(f); err == nil {
			o.Live = c
			closers = appendCloser(closers, c)
		}
	}
	if f.cfg.Extract.Enabled {
		o.Sources = openSources(f)
		closers = append(closers, o.Sources)
	}
	return o, func() { closeAll(closers) }
}

// doctorOpenCodeModel resolves OpenCode's own model for doctor: kept with
// the model check, else asked for with a short time-out (it may take tens
// of seconds).
func doctorOpenCodeModel(f *folder, o *doctor.Options) {
	switch {
	case o.Provider != "opencode" || f.cfg.Origin("extract.model").Source != config.FromDefault:
	case o.Cached != nil:
		setOpenCodeModel(f, o.Cached.OpenCodeModel)
	default:
		ctx, cancel := context.WithTimeout(context.Background(), doctor.ModelCheckTimeout)
		openCodeModel(ctx, f)
		cancel()
		if f.cfg.Origin("extract.model").Source == config.FromDefault && f.cfg.Extract.Model != config.Default().Extract.Model {
			o.OpenCodeModel = f.cfg.Extract.Model
		}
	}
}

// appendCloser appends x to cs when it is an io.Closer.
func appendCloser(cs []io.Closer, x any) []io.Closer {
	if c, ok := x.(io.Closer); ok {
		return append(cs, c)
	}
	return cs
}
