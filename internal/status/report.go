// Package status owns what `memoryd status` reports: the report on a memory
// folder gathered from where each thing is true now (the instance lock, git
// history, compaction.json, the token ledger, the daemon's status.json and
// the service manager), corrected where the daemon's last word is behind
// the files, and its text. The command opens the folder, asks the service
// manager and the gate, and hands the pieces here.
package status

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/cost"
	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/state"
)

// Report is what `memoryd status --json` prints. Its times are
// absolute; the text shows them relative to now. Everything comes from
// where it is true now: the instance lock says whether a daemon runs, git
// history says what was committed last (by any memoryd process),
// compaction.json says when a pass last ran; status.json adds what only
// the daemon knows.
type Report struct {
	MemoryDir string `json:"memoryDir"`
	StateDir  string `json:"stateDir"`
	// Running is whether a daemon holds the folder's instance lock now
	// (state.InstanceHeld: found even when its state folder was deleted).
	Running    bool       `json:"running"`
	Service    string     `json:"service,omitempty"`
	LastCommit *Commit    `json:"lastCommit,omitempty"`
	Compaction Compaction `json:"compaction"`
	// Tokens is what the LLM calls spent, from the state folder's ledger.
	Tokens cost.Report `json:"tokens"`
	// Daemon is what the daemon last published (status.json). When no
	// daemon runs it is marked Stale and not Running, whatever the file says.
	Daemon   *daemon.Status `json:"daemon,omitempty"`
	Problems []string       `json:"problems"`
	// Unused proposes the facts no agent used for review.unused_after for a
	// person's review; absent when that is off or no fact qualifies.
	Unused *Unused `json:"unused,omitempty"`
	// SyncOff is the notes repository's upstream ("origin/main") when it has
	// one and sync.enabled is off; absent otherwise.
	SyncOff string `json:"syncOff,omitempty"`
	// SyncPending says that sync is on in the config file but off in the
	// running daemon, which started before (SyncRestart); absent otherwise.
	SyncPending string `json:"syncPending,omitempty"`
	// Fix is the command that starts the daemon in the situation found,
	// when none runs.
	Fix string `json:"fix,omitempty"`

	crashed bool   // the last daemon did not shut down cleanly
	cfgPath string // the config file, for the advice
}

// Commit is the newest commit touching the memory folder.
type Commit struct {
	Hash    string    `json:"hash"`
	Subject string    `json:"subject"`
	At      time.Time `json:"at"`
}

// Compaction is the compaction part of the report.
type Compaction struct {
	Enabled     bool      `json:"enabled"`
	Churn       int       `json:"churn"`
	ChurnLimit  int       `json:"churnLimit"`
	LastPassAt  time.Time `json:"lastPassAt,omitzero"`  // absent: no pass has run
	NextCheckAt time.Time `json:"nextCheckAt,omitzero"` // while a daemon runs
}

// Unused is status's proposal of the facts no agent used for a while.
type Unused struct {
	After   string   `json:"after"`   // review.unused_after, such as "90d"
	Files   []string `json:"files"`   // the facts, by file name
	Command string   `json:"command"` // what lists them to act on
}

// Folder is what the report reads of the memory folder the command opened.
type Folder struct {
	Dir        string // real path
	StateDir   string
	ConfigPath string
	Config     config.Config
	Repo       *gitstore.Repo // nil when there is no usable repository
	GitProblem string         // why Repo is nil, in words ("" when it is not)
	Provider   string         // the LLM provider in effect; "none" turns the jobs off
}

// Input is everything Build reports on: the folder, the service manager's
// answer, and what the command's gate and usage log found.
type Input struct {
	Folder  Folder
	Service Service
	Held    []string // the facts the gate holds from agents, as problems
	Unused  *Unused  // nil: nothing to propose
}

// Build is the report on in's folder at now.
func Build(ctx context.Context, in Input, now time.Time) Report {
	f := in.Folder
	r := Report{MemoryDir: f.Dir, StateDir: f.StateDir, Problems: []string{}, Service: in.Service.Describe(), cfgPath: f.ConfigPath}
	r.Running = state.InstanceHeld(f.StateDir, f.Dir)
	var st daemon.Status
	if err := state.ReadJSON(f.StateDir, state.StatusFile, &st); err == nil {
		r.Daemon = &st
		r.freshen(f)
	} else if !state.IsNotExist(err) {
		r.Problems = append(r.Problems, err.Error())
	}
	if f.GitProblem != "" {
		r.Problems = append(r.Problems, f.GitProblem)
	}
	r.Problems = append(r.Problems, r.readHistory(f)...)
	r.Problems = append(r.Problems, r.readCompaction(f)...)
	r.Problems = append(r.Problems, r.readTokens(f, now)...)
	r.Problems = append(r.Problems, in.Held...)
	r.Unused = in.Unused
	// A running daemon's own word on sync counts over the configuration
	// this command read (its environment may differ).
	if daemonSyncs := r.Running && r.Daemon != nil && r.Daemon.Sync.Enabled; !daemonSyncs && !f.Config.Sync.Enabled && f.Repo != nil {
		r.SyncOff, _ = gitsync.Target(ctx, f.Repo, f.Config.Sync.Remote)
	}
	if r.Running {
		if r.Daemon != nil {
			r.Problems = append(r.Problems, r.Daemon.Problems()...)
		}
	} else {
		r.Problems = append(r.Problems, r.notRunning(f, in.Service))
	}
	return r
}

// readHistory sets the last commit from git: the newest commit touching the
// folder, whoever made it (the daemon, `memoryd extract`, `compact`, `undo`,
// or a person), so it is right whether or not a daemon runs.
func (r *Report) readHistory(f Folder) []string {
	if f.Repo == nil {
		return nil
	}
	commits, err := f.Repo.History(1)
	if err != nil {
		return []string{"git: " + err.Error()}
	}
	if len(commits) > 0 {
		c := commits[0]
		r.LastCommit = &Commit{Hash: c.Hash, Subject: c.Subject, At: c.When}
	}
	return nil
}

// readCompaction fills the compaction report from compaction.json, which
// every process that compacts or adds churn updates, and from the daemon
// when it runs.
func (r *Report) readCompaction(f Folder) []string {
	var c state.Compaction
	var problems []string
	if err := state.ReadJSON(f.StateDir, state.CompactionFile, &c); err != nil && !state.IsNotExist(err) {
		problems = append(problems, err.Error())
	}
	cr := Compaction{Churn: c.Churn, ChurnLimit: f.Config.Compact.Churn, LastPassAt: lastPass(c)}
	if r.Running && r.Daemon != nil {
		cr.Enabled, cr.NextCheckAt = r.Daemon.Compaction.Enabled, r.Daemon.Compaction.NextCheckAt
	} else {
		cr.Enabled = f.Config.Compact.Enabled && f.Repo != nil && f.Provider != "none"
		if c.LastError != "" {
			problems = append(problems, "last compaction failed: "+c.LastError)
		}
	}
	r.Compaction = cr
	return problems
}

// readTokens fills the token report from the ledger, with the daily limit
// of the running daemon (what it enforces), else of the configuration.
func (r *Report) readTokens(f Folder, now time.Time) []string {
	led, err := state.ReadTokens(f.StateDir)
	limit := f.Config.LLM.DailyTokens
	if r.Running && r.Daemon != nil {
		limit = r.Daemon.Budget.DailyTokens
	}
	r.Tokens = cost.Summarize(led, limit, now)
	if err != nil {
		return []string{err.Error()}
	}
	return nil
}

// lastPass is when a compaction pass last finished, zero if never. A state
// written before LastPassAt existed shows a finished pass as LastAttemptedAt
// equal to LastCompactedAt (state.RecordPass sets both); a fresh state has
// no attempt, and a later attempt moves LastAttemptedAt on.
func lastPass(c state.Compaction) time.Time {
	if !c.LastPassAt.IsZero() {
		return c.LastPassAt
	}
	if !c.LastAttemptedAt.IsZero() && c.LastAttemptedAt.Equal(c.LastCompactedAt) {
		return c.LastCompactedAt
	}
	return time.Time{}
}

// SyncRestart is status's sync line when the config file turns sync on
// but the running daemon started without it (install --sync before the
// restart).
const SyncRestart = "on in the config file, but the running daemon started before: memoryd restart turns it on"

// freshen corrects, from the files, what the daemon's last status cannot
// know yet, so status never contradicts the command before it: review
// items already accepted or rejected (their _inbox/ file is gone) are
// dropped, and sync turned on in the config file since the daemon
// started is said as such.
func (r *Report) freshen(f Folder) {
	st := r.Daemon
	if st == nil {
		return
	}
	kept := []string{}
	for _, file := range st.Sync.Review {
		if _, err := os.Lstat(filepath.Join(f.Dir, filepath.FromSlash(file))); err == nil {
			kept = append(kept, file)
		}
	}
	st.Sync.Review = kept
	if r.Running && !st.Sync.Enabled && f.Config.Sync.Enabled {
		r.SyncPending = SyncRestart
	}
}

// notRunning marks what status.json says as stale and returns the problem,
// with the command that starts the daemon in the situation found.
func (r *Report) notRunning(f Folder, svc Service) string {
	msg := "the daemon is not running"
	if d := r.Daemon; d != nil {
		if d.Running {
			r.crashed = true
			msg = fmt.Sprintf("the daemon (pid %d) did not shut down cleanly: it was killed or crashed; 'memoryd logs' shows its last lines", d.PID)
		}
		d.Running, d.Stale = false, true
	}
	var how string
	switch {
	case svc.Installed() && svc.Err == nil && svc.Status.Running:
		// The service runs but holds no lock for this folder: it is
		// restarting after a failure, or its configuration names another folder.
		r.Fix = "memoryd logs"
		how = "the service is running but no daemon serves this folder; see why with: " + r.Fix
	case svc.Installed() && svc.Err == nil:
		r.Fix = "memoryd start"
		how = "start it with: " + r.Fix
	case svc.Installed():
		r.Fix = RunLine(f.Config, f.Dir)
		how = "the service manager cannot be reached from here; start it by hand with: " + r.Fix
	default:
		r.Fix = RunLine(f.Config, f.Dir)
		how = "start it with: " + r.Fix + " (or 'memoryd install' to run it as a service)"
	}
	return msg + "; " + how
}
