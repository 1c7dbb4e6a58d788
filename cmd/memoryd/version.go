package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"
)

// buildVersion is set with -ldflags "-X main.buildVersion=v1.2.3" by releases.
var buildVersion = ""

func init() {
	register(&command{name: "version", summary: "Print the version.", run: func(_ context.Context, e env, _ *flag.FlagSet, _ []string) error {
		fmt.Fprintln(e.stdout, "memoryd", version())
		return nil
	}})
}

func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "dev-" + rev
}
