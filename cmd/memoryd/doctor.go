package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/memoryd/memoryd/doctor"
	"github.com/memoryd/memoryd/install"
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
	o := doctor.Options{
		User:        e.getenv("USER"),
		OpenCodeDir: install.OpenCodeDir(e.getenv("HOME"), e.getenv("XDG_CONFIG_HOME")),
	}
	o.Install, o.InstallErr = installOptions(e, flag.NewFlagSet("", flag.ContinueOnError), "")
	f, err := openFolder(e, fs)
	if err != nil {
		o.FolderErr = err
	} else {
		o.Dir, o.Config, o.ConfigPath = f.dir, f.cfg, f.cfgPath
		o.Repo, o.RepoErr = f.repo, f.repoErr
		o.Provider = providerName(f)
		if o.Provider == "opencode" {
			openCodeModel(f)
		}
		o.Config, o.LLM = f.cfg, llmOptions(f, o.Provider)
		if flagString(fs, "llm") == "true" && o.Provider != "none" {
			if c, _, err := newLLM(f); err == nil {
				o.Live = c
				if cl, ok := c.(io.Closer); ok {
					defer cl.Close()
				}
			}
		}
		if f.cfg.Extract.Enabled {
			o.Sources = openSources(f)
			defer o.Sources.Close()
		}
	}
	findings := doctor.Run(ctx, o)
	for _, x := range findings {
		if x.Problem == "" {
			line := "ok       " + x.Check
			if x.Note != "" {
				line += ": " + x.Note
			}
			fmt.Fprintln(e.stdout, line)
			continue
		}
		fmt.Fprintf(e.stdout, "PROBLEM  %s: %s\n", x.Check, x.Problem)
		if x.Fix != "" {
			fmt.Fprintf(e.stdout, "         fix: %s\n", x.Fix)
		}
	}
	if n := doctor.Problems(findings); n > 0 {
		return fmt.Errorf("%d problem(s) found", n)
	}
	fmt.Fprintln(e.stdout, "everything looks fine")
	return nil
}
