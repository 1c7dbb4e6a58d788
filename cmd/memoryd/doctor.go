package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/state"

	"github.com/memoryd/memoryd/internal/doctor"
	"github.com/memoryd/memoryd/internal/install"
)

func init() {
	register(&command{
		name:    "doctor",
		args:    "[--llm]",
		summary: "Check the setup; print each problem with the command that fixes it (exit 1 if any).",
		flags: func(fs *flag.FlagSet) {
			fs.Bool("llm", false, "also make one tiny real call to the model and report its latency and tokens")
		},
		run: runDoctor,
	})
}

func runDoctor(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	o, done := doctorOptions(e, fs)
	defer done()
	findings := doctor.Run(ctx, o)
	if o.InstallErr == nil {
		findings = append(findings, hookFindings(ctx, o.Install)...)
	}
	printFindings(e.stdout, findings)
	if n := doctor.Problems(findings); n > 0 {
		return fmt.Errorf("%d problem(s) found", n)
	}
	fmt.Fprintln(e.stdout, "everything looks fine")
	return nil
}

// doctorOptions resolves what the checks look at; done releases what it
// opened (transcript stores, a live LLM client).
func doctorOptions(e env, fs *flag.FlagSet) (doctor.Options, func()) {
	o := doctor.Options{
		User:        e.getenv("USER"),
		OpenCodeDir: install.OpenCodeDir(e.getenv("HOME"), e.getenv("XDG_CONFIG_HOME")),
	}
	o.Install, o.InstallErr = installOptions(e, flag.NewFlagSet("", flag.ContinueOnError), "")
	f, err := openFolder(e, fs)
	if err != nil {
		o.FolderErr = err
		return o, func() {}
	}
	var closers []io.Closer
	o.Dir, o.ConfigPath, o.Repo, o.RepoErr = f.dir, f.cfgPath, f.repo, f.repoErr
	if o.Provider = providerName(f); o.Provider == "opencode" {
		openCodeModel(f)
	}
	o.Config, o.LLM = f.cfg, llmOptions(f, o.Provider)
	o.Sync = doctorSync(f)
	if flagString(fs, "llm") == "true" && o.Provider != "none" {
		if c, _, err := newLLM(f); err == nil {
			o.Live = c
			if cl, ok := c.(io.Closer); ok {
				closers = append(closers, cl)
			}
		}
	}
	if f.cfg.Extract.Enabled {
		o.Sources = openSources(f)
		closers = append(closers, o.Sources)
	}
	return o, func() { closeAll(closers) }
}

func printFindings(w io.Writer, findings []doctor.Finding) {
	for _, x := range findings {
		if x.Problem == "" {
			line := "ok       " + x.Check
			if x.Note != "" {
				line += ": " + x.Note
			}
			fmt.Fprintln(w, line)
			continue
		}
		fmt.Fprintf(w, "PROBLEM  %s: %s\n", x.Check, x.Problem)
		if x.Fix != "" {
			fmt.Fprintf(w, "         fix: %s\n", x.Fix)
		}
	}
}

// doctorSync is sync's state for doctor: the configuration, the upstream,
// and what the daemon last published (also when none runs now: a remote
// that refused the credentials a day ago still does).
func doctorSync(f *folder) doctor.SyncState {
	s := doctor.SyncState{Enabled: f.cfg.Sync.Enabled, Now: time.Now()}
	if f.repo == nil {
		return s
	}
	s.Target, s.TargetErr = gitsync.Target(context.Background(), f.repo, f.cfg.Sync.Remote)
	var st daemon.Status
	if err := state.ReadJSON(f.stateDir, state.StatusFile, &st); err == nil && st.Sync.Enabled {
		s.OfflineSince, s.Problem, s.Paused = st.Sync.OfflineSince, st.Sync.Problem, st.Sync.Paused
	}
	return s
}
