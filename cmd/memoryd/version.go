package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
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

// buildInfo is what the binary knows about its own build.
type buildInfo struct {
	version    string
	commit     string // full VCS revision, "" when unknown
	modified   bool   // built from a working tree with uncommitted changes
	commitTime string // the commit's time, from the VCS
	built      string // the build's date, when the release set it
	goVersion  string
	platform   string
}

// moduleVersion is the version the go command recorded for the main module
// — `go install github.com/memoryd/memoryd/cmd/memoryd@v1.2.3` records
// v1.2.3 — or "" for a build from a checkout: "(devel)", or the
// pseudo-version Go 1.24+ makes of the checkout's commit
// (v0.0.0-20261128010632-ecafa02adb4a, "+dirty" with changes), which the
// version reads as dev-<commit>. A checkout at a clean tag keeps the tag.
func moduleVersion(info *debug.BuildInfo) string {
	if info == nil || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return ""
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && (strings.HasSuffix(v, "+dirty") || len(s.Value) >= 12 && strings.Contains(v, s.Value[:12])) {
			return ""
		}
	}
	return v
}

func readBuildInfo() buildInfo {
	b := buildInfo{version: buildVersion, built: buildDate, goVersion: runtime.Version(), platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if ok {
		b.goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.commit = s.Value
			case "vcs.modified":
				b.modified = s.Value == "true"
			case "vcs.time":
				b.commitTime = s.Value
			}
		}
	}
	if b.version == "" {
		b.version = moduleVersion(info)
	}
	if b.version == "" {
		b.version = "dev"
		if b.commit != "" {
			b.version += "-" + b.commit[:min(12, len(b.commit))]
			if b.modified {
				b.version += "-dirty"
			}
		}
	}
	return b
}

// version is the short version, for logs and status.json.
func version() string { return readBuildInfo().version }

// printVersion is `memoryd --version`: the version on the first line, then
// what else is known about the build.
func printVersion(w io.Writer) {
	b := readBuildInfo()
	fmt.Fprintln(w, "memoryd", b.version)
	if b.commit != "" {
		mod := ""
		if b.modified {
			mod = " (with uncommitted changes)"
		}
		fmt.Fprintf(w, "  commit:      %s%s\n", b.commit, mod)
	}
	if b.commitTime != "" {
		fmt.Fprintf(w, "  commit date: %s\n", b.commitTime)
	}
	if b.built != "" {
		fmt.Fprintf(w, "  built:       %s\n", b.built)
	}
	fmt.Fprintf(w, "  go:          %s %s\n", b.goVersion, b.platform)
}
