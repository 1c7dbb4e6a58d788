package doctor

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/state"
)

// Report is `memoryd doctor --json` (docs/JSON.md).
type Report struct {
	OK       bool          `json:"ok"`
	Problems int           `json:"problems"`
	Checks   []CheckReport `json:"checks"`
}

// CheckReport is one finding in a Report.
type CheckReport struct {
	Check   string `json:"check"`
	State   string `json:"state"` // ok, not used, problem
	Note    string `json:"note,omitempty"`
	Problem string `json:"problem,omitempty"`
	Fix     string `json:"fix,omitempty"`
}

// NewReport is findings as `memoryd doctor --json` prints them.
func NewReport(findings []Finding) Report {
	r := Report{Problems: Problems(findings), Checks: []CheckReport{}}
	r.OK = r.Problems == 0
	for _, x := range findings {
		r.Checks = append(r.Checks, CheckReport{Check: x.Check, State: x.State(), Note: x.Note, Problem: x.Problem, Fix: x.Fix})
	}
	return r
}

// Print writes findings as `memoryd doctor` shows them: a line a check,
// each problem with its fix below it.
func Print(w io.Writer, findings []Finding) {
	for _, x := range findings {
		if x.Problem == "" {
			line := "ok       " + x.Check
			if x.NotUsed {
				line = "not used " + x.Check
			}
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

// ReadSync is sync's state for doctor: enabled (sync.enabled), the
// upstream of repo for remote (sync.remote), and what the daemon last
// published in stateDir (also when none runs now: a remote that refused
// the credentials a day ago still does). A nil repo has no upstream.
func ReadSync(ctx context.Context, repo *gitstore.Repo, remote, stateDir string, enabled bool, now time.Time) SyncState {
	s := SyncState{Enabled: enabled, Now: now}
	if repo == nil {
		return s
	}
	s.Target, s.TargetErr = gitsync.Target(ctx, repo, remote)
	var st daemon.Status
	if err := state.ReadJSON(stateDir, state.StatusFile, &st); err == nil && st.Sync.Enabled {
		s.OfflineSince, s.Problem, s.Paused = st.Sync.OfflineSince, st.Sync.Problem, st.Sync.Paused
	}
	return s
}
