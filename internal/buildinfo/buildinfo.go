// Package buildinfo is what the memoryd binary knows about its own build:
// the version a release stamped in (-ldflags -X), else the one the go
// command recorded for `go install …@v1.2.3`, else dev-<commit>; the
// commit, whether it had uncommitted changes, the Go version and the
// platform. `memoryd version`, the logs, status.json, the man page and the
// warm socket's build check read it here.
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is what the binary knows about its own build.
type Info struct {
	Version    string
	Commit     string // full VCS revision, "" when unknown
	Modified   bool   // built from a working tree with uncommitted changes
	CommitTime string // the commit's time, from the VCS
	Built      string // the build's date, when the release set it
	GoVersion  string
	Platform   string
}

// Read is this binary's build; release and date are what a release set
// with -ldflags -X ("" for any other build).
func Read(release, date string) Info {
	b := Info{Version: release, Built: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if ok {
		b.GoVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			case "vcs.time":
				b.CommitTime = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = moduleVersion(info)
	}
	if b.Version == "" {
		b.Version = "dev"
		if b.Commit != "" {
			b.Version += "-" + b.Commit[:min(12, len(b.Commit))]
			if b.Modified {
				b.Version += "-dirty"
			}
		}
	}
	return b
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

// Build names this build for the warm socket: a daemon of another build
// (an upgrade not yet restarted) is not asked.
func (b Info) Build() string {
	v := b.Version + " " + b.Commit
	if b.Modified {
		v += " modified"
	}
	return v
}

// Print is `memoryd --version`: the version on the first line, then what
// else is known about the build.
func (b Info) Print(w io.Writer) {
	fmt.Fprintln(w, "memoryd", b.Version)
	if b.Commit != "" {
		mod := ""
		if b.Modified {
			mod = " (with uncommitted changes)"
		}
		fmt.Fprintf(w, "  commit:      %s%s\n", b.Commit, mod)
	}
	if b.CommitTime != "" {
		fmt.Fprintf(w, "  commit date: %s\n", b.CommitTime)
	}
	if b.Built != "" {
		fmt.Fprintf(w, "  built:       %s\n", b.Built)
	}
	fmt.Fprintf(w, "  go:          %s %s\n", b.GoVersion, b.Platform)
}
