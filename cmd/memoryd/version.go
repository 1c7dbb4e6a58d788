package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/buildinfo"
)

// Set by releases with -ldflags "-X main.buildVersion=v1.2.3 -X main.buildDate=2025-01-02T15:04:05Z".
var (
	buildVersion = ""
	buildDate    = ""
)

func newCmdVersion(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, Go version and build date.",
		Args:  argsAtMost(0),
		RunE: func(*cobra.Command, []string) error {
			printVersion(a.stdout)
			return nil
		},
	}
}

// build is this binary's build (package buildinfo).
func build() buildinfo.Info { return buildinfo.Read(buildVersion, buildDate) }

// version is the short version, for logs and status.json.
func version() string { return build().Version }

// printVersion is `memoryd --version`.
func printVersion(w io.Writer) { build().Print(w) }
