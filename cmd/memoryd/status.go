package main

import (
	"context"
	"fmt"
	"github.com/memoryd/memoryd/internal/shell"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/cost"
	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/state"
)

func newCmdStatus(a *app) *cobra.Command {
	o := &jsonOptions{app: a}
	cmd := &cobra.Command{
		Use:   "status [--json]",
		Short: "Show the daemon's state: last rebuild and commit, churn, compaction, sessions, problems (exit 3: not running).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runStatus(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the report as JSON, with absolute times")
	return cmd
}

// statusReport is what `memoryd status --json` prints. Its times are
// absolute; the text shows them relative to now. Everything comes from
// where it is true now: the instance lock says whether a daemon runs, git
// history says what was committed last (by any memoryd process),
// compaction.json says when a pass last ran; status.json adds what only
// the daemon knows.
type statusReport struct {
	MemoryDir string `json:"memoryDir"`
	StateDir  string `json:"stateDir"`
	// Running is whether a daemon holds the folder's instance lock now
	// (state.InstanceHeld: found even when its state folder was deleted).
	Running    bool          `json:"running"`
	Service    string        `json:"service,omitempty"`
	LastCommit *commitReport `json:"lastCommit,omitempty"`
	Compaction compactReport `json:"compaction"`
	// Tokens is what the LLM calls spent, from the state folder's ledger.
	Tokens cost.Report `json:"tokens"`
	// Daemon is what the daemon last published (status.json). When no
	// daemon runs it is marked Stale and not Running, whatever the file says.
	Daemon   *daemon.Status `json:"daemon,omitempty"`
	Problems []string       `json:"problems"`
	// Unused proposes the facts no agent used for review.unused_after for a
	// person's review; absent when that is off or no fact qualifies.
	Unused *unusedReport `json:"unused,omitempty"`
	// SyncOff is the notes repository's upstream ("origin/main") when it has
	// one and sync.enabled is off; absent otherwise.
	SyncOff string `json:"syncOff,omitempty"`
	// SyncPending says that sync is on in the config file but off in the
	// running daemon, which started before (syncRestart); absent otherwise.
	SyncPending string `json:"syncPending,omitempty"`
	// Fix is the command that starts the daemon in the situation found,
	// when none runs.
	Fix string `json:"fix,omitempty"`

	crashed bool   // the last daemon did not shut down cleanly
	cfgPath string // the config file, for the advice
}

// commitReport is the newest commit touching the memory folder.
type commitReport struct {
	Hash    string    `json:"hash"`
	Subject string    `json:"subject"`
	At      time.Time `json:"at"`
}

// compactReport is the compaction part of the report.
type compactReport struct {
	Enabled     bool      `json:"enabled"`
	Churn       int       `json:"churn"`
	ChurnLimit  int       `json:"churnLimit"`
	LastPassAt  time.Time `json:"lastPassAt,omitzero"`  // absent: no pass has run
	NextCheckAt time.Time `json:"nextCheckAt,omitzero"` // while a daemon runs
}

func runStatus(ctx context.Context, o *jsonOptions) error {
	e := o.env
	f, err := openFolder(e, o.global)
	if err != nil {
		return err
	}
	r := buildStatus(ctx, f, lookupService(ctx, e))
	if o.json {
		if err := writeJSON(e.stdout, r); err != nil {
			return err
		}
	} else {
		printStatus(e.stdout, r, time.Now())
	}
	if !r.Running {
		return exitError{code: exitNotRunning}
	}
	return nil
}

// buildStatus is the report on f, with svc the service's state.
func buildStatus(ctx context.Context, f *folder, svc serviceInfo) statusReport {
	r := statusReport{MemoryDir: f.dir, StateDir: f.stateDir, Problems: []string{}, Service: svc.describe(), cfgPath: f.cfgPath}
	r.Running = state.InstanceHeld(f.stateDir, f.dir)
	var st daemon.Status
	if err := state.ReadJSON(f.stateDir, state.StatusFile, &st); err == nil {
		r.Daemon = &st
		r.freshen(f)
	} else if !state.IsNotExist(err) {
		r.Problems = append(r.Problems, err.Error())
	}
	if p := f.gitProblem(); p != "" {
		r.Problems = append(r.Problems, p)
	}
	r.Problems = append(r.Problems, r.readHistory(f)...)
	r.Problems = append(r.Problems, r.readCompaction(f)...)
	r.Problems = append(r.Problems, r.readTokens(f, time.Now())...)
	r.Problems = append(r.Problems, heldProblems(f)...)
	r.Problems = append(r.Problems, teamHeldProblems(f, workDir())...)
	r.Unused = unusedProposal(f, time.Now())
	// A running daemon's own word on sync counts over the configuration
	// this command read (its environment may differ).
	if daemonSyncs := r.Running && r.Daemon != nil && r.Daemon.Sync.Enabled; !daemonSyncs && !f.cfg.Sync.Enabled && f.repo != nil {
		r.SyncOff, _ = gitsync.Target(ctx, f.repo, f.cfg.Sync.Remote)
	}
	if r.Running {
		if r.Daemon != nil {
			r.Problems = append(r.Problems, r.Daemon.Problems()...)
		}
	} else {
		r.Problems = append(r.Problems, r.notRunning(f, svc))
	}
	return r
}

// readHistory sets the last commit from git: the newest commit touching the
// folder, whoever made it (the daemon, `memoryd extract`, `compact`, `undo`,
// or a person), so it is right whether or not a daemon runs.
func (r *statusReport) readHistory(f *folder) []string {
	if f.repo == nil {
		return nil
	}
	commits, err := f.repo.History(1)
	if err != nil {
		return []string{"git: " + err.Error()}
	}
	if len(commits) > 0 {
		c := commits[0]
		r.LastCommit = &commitReport{Hash: c.Hash, Subject: c.Subject, At: c.When}
	}
	return nil
}

// readCompaction fills the compaction report from compaction.json, which
// every process that compacts or adds churn updates, and from the daemon
// when it runs.
func (r *statusReport) readCompaction(f *folder) []string {
	var c state.Compaction
	var problems []string
	if err := state.ReadJSON(f.stateDir, state.CompactionFile, &c); err != nil && !state.IsNotExist(err) {
		problems = append(problems, err.Error())
	}
	cr := compactReport{Churn: c.Churn, ChurnLimit: f.cfg.Compact.Churn, LastPassAt: lastPass(c)}
	if r.Running && r.Daemon != nil {
		cr.Enabled, cr.NextCheckAt = r.Daemon.Compaction.Enabled, r.Daemon.Compaction.NextCheckAt
	} else {
		cr.Enabled = f.cfg.Compact.Enabled && f.repo != nil && providerName(f) != "none"
		if c.LastError != "" {
			problems = append(problems, "last compaction failed: "+c.LastError)
		}
	}
	r.Compaction = cr
	return problems
}

// readTokens fills the token report from the ledger, with the daily limit
// of the running daemon (what it enforces), else of the configuration.
func (r *statusReport) readTokens(f *folder, now time.Time) []string {
	led, err := state.ReadTokens(f.stateDir)
	limit := f.cfg.LLM.DailyTokens
	if r.Running && r.Daemon != nil {
		limit = r.Daemon.Budget.DailyTokens
	}
	r.Tokens = cost.Summarize(led, limit, now)
	if err != nil {
		return []string{err.Error()}
	}
	return nil
}

// printTokens is the tokens line, and the budget line while it is spent.
func printTokens(w io.Writer, t cost.Report, now time.Time) {
	var byTask []string
	for _, task := range t.Tasks() {
		byTask = append(byTask, task+" "+cost.Group(t.TodayByTask[task]))
	}
	fmt.Fprintf(w, "tokens         %s today", cost.Group(t.Today))
	if len(byTask) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(byTask, ", "))
	}
	fmt.Fprintf(w, ", %s in the last 7 days", cost.Group(t.Last7Days))
	if t.DailyLimit > 0 {
		fmt.Fprintf(w, ", daily limit %s\n", cost.Group(t.DailyLimit))
	} else {
		fmt.Fprintln(w, ", no daily limit")
	}
	if t.Paused {
		fmt.Fprintf(w, "budget         paused: %s of %s tokens spent today; background extraction and compaction resume at midnight (%s)\n",
			cost.Group(t.Today), cost.Group(t.DailyLimit), relTime(t.ResumesAt, now))
	}
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

// notRunning marks what status.json says as stale and returns the problem,
// with the command that starts the daemon in the situation found.
func (r *statusReport) notRunning(f *folder, svc serviceInfo) string {
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
	case svc.installed() && svc.err == nil && svc.st.Running:
		// The service runs but holds no lock for this folder: it is
		// restarting after a failure, or its configuration names another folder.
		r.Fix = "memoryd logs"
		how = "the service is running but no daemon serves this folder; see why with: " + r.Fix
	case svc.installed() && svc.err == nil:
		r.Fix = "memoryd start"
		how = "start it with: " + r.Fix
	case svc.installed():
		r.Fix = runLine(f)
		how = "the service manager cannot be reached from here; start it by hand with: " + r.Fix
	default:
		r.Fix = runLine(f)
		how = "start it with: " + r.Fix + " (or 'memoryd install' to run it as a service)"
	}
	return msg + "; " + how
}

// runLine is the `memoryd run` command line that starts a daemon for f:
// with the configuration file when there is one, as the service does, and
// with the folder unless that file names it.
func runLine(f *folder) string {
	args := []string{"memoryd", "run"}
	if p, found := f.cfg.File(); found {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		args = append(args, "--config", shell.Quote(p))
	}
	if f.cfg.Origin("memory_dir").Source != config.FromFile {
		args = append(args, "--memory-dir", shell.Quote(f.dir))
	}
	return strings.Join(args, " ")
}

func printStatus(w io.Writer, r statusReport, now time.Time) {
	fmt.Fprintf(w, "memory folder  %s\nstate folder   %s\ndaemon         %s\n", r.MemoryDir, r.StateDir, daemonLine(r, now))
	if r.Service != "" {
		fmt.Fprintf(w, "service        %s\n", r.Service)
	}
	s := r.Daemon
	if r.Running && s != nil {
		fmt.Fprintf(w, "memories       %d (index %d lines, %d bytes)\n", s.Index.Files, s.Index.Lines, s.Index.Bytes)
	}
	if s != nil {
		fmt.Fprintf(w, "last rebuild   %s\n", relTime(s.Index.RebuiltAt, now))
	}
	commit := "none yet"
	if c := r.LastCommit; c != nil {
		commit = fmt.Sprintf("%s %s: %s", c.Hash[:min(12, len(c.Hash))], relTime(c.At, now), c.Subject)
	}
	fmt.Fprintf(w, "last commit    %s\n", commit)
	printCompaction(w, r.Compaction, now)
	if r.Running && s != nil {
		printSessions(w, s.Extraction, now)
	}
	switch {
	case s != nil && s.Sync.Enabled && r.Running:
		printSyncStatus(w, s.Sync, now)
	case r.SyncPending != "":
		fmt.Fprintf(w, "sync           %s\n", r.SyncPending)
	case r.SyncOff != "":
		fmt.Fprintf(w, "sync           off; the notes repository has an upstream (%s): %s\n", r.SyncOff, syncOnFix(r.cfgPath))
	case s != nil && s.Sync.Enabled:
		printSyncStatus(w, s.Sync, now)
	}
	printTokens(w, r.Tokens, now)
	printUnused(w, r.Unused)
	printProblems(w, r.Problems)
}

func printCompaction(w io.Writer, c compactReport, now time.Time) {
	if !c.Enabled {
		fmt.Fprintf(w, "compaction     off (last pass %s)\n", relTime(c.LastPassAt, now))
		return
	}
	fmt.Fprintf(w, "compaction     churn %d of %d, last pass %s", c.Churn, c.ChurnLimit, relTime(c.LastPassAt, now))
	if !c.NextCheckAt.IsZero() {
		fmt.Fprintf(w, ", next check %s", relTime(c.NextCheckAt, now))
	}
	fmt.Fprintln(w)
}

func printSessions(w io.Writer, x daemon.ExtractStatus, now time.Time) {
	if !x.Enabled {
		fmt.Fprintln(w, "extraction     off")
		return
	}
	fmt.Fprintf(w, "sessions       %d seen, %d pending", x.Sessions, len(x.Pending))
	if x.LastSession != "" {
		fmt.Fprintf(w, ", last extracted %s %s (%d written)", x.LastSession, relTime(x.LastAt, now), x.LastWritten)
	}
	fmt.Fprintln(w)
}

func printProblems(w io.Writer, problems []string) {
	if len(problems) == 0 {
		fmt.Fprintln(w, "problems       none")
		return
	}
	fmt.Fprintln(w, "problems:")
	for _, p := range problems {
		fmt.Fprintf(w, "  - %s\n", strings.ReplaceAll(p, "\n", "\n    "))
	}
}

// daemonLine says whether a daemon runs and, if not, how the last one ended.
func daemonLine(r statusReport, now time.Time) string {
	d := r.Daemon
	switch {
	case r.Running && d != nil:
		return fmt.Sprintf("running (pid %d, started %s)", d.PID, relTime(d.StartedAt, now))
	case r.Running:
		return "running"
	case d == nil:
		return "not running (never started for this folder)"
	case r.crashed:
		return fmt.Sprintf("not running (pid %d was killed or crashed; last seen %s)", d.PID, relTime(d.UpdatedAt, now))
	default:
		return fmt.Sprintf("not running (pid %d stopped %s)", d.PID, relTime(d.UpdatedAt, now))
	}
}

// relTime says when t is from now in words: "just now", "40 s ago",
// "2 min ago", "3 h ago", "5 days ago", or "in 8 min" for a time to come,
// and "never" for the zero time. Each figure is rounded to its unit.
func relTime(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var amount string
	switch {
	case d < time.Second:
		return "just now"
	case d < 59500*time.Millisecond:
		amount = fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	case d < 59*time.Minute+30*time.Second:
		amount = fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
	case d < 47*time.Hour+30*time.Minute:
		amount = fmt.Sprintf("%d h", int(d.Round(time.Hour)/time.Hour))
	default:
		days := int((d + 12*time.Hour) / (24 * time.Hour))
		amount = fmt.Sprintf("%d days", days)
	}
	if future {
		return "in " + amount
	}
	return amount + " ago"
}

// serviceInfo is what the service manager says about the memoryd service,
// asked once per command.
type serviceInfo struct {
	opts install.Options
	st   install.ServiceStatus
	err  error // the manager could not be asked (or no options: HOME unset)
}

func lookupService(ctx context.Context, e env) serviceInfo {
	o, err := installOptions(e, globalFlags{}, "")
	if err != nil {
		return serviceInfo{err: err}
	}
	o.Binary = "" // do not compare the unit with this binary
	st, err := install.Status(ctx, o)
	return serviceInfo{opts: o, st: st, err: err}
}

// installed reports whether the unit or plist exists.
func (s serviceInfo) installed() bool { return s.st.Installed }

// describe is the service line of `memoryd status`.
func (s serviceInfo) describe() string {
	switch {
	case s.opts.Home == "":
		return ""
	case !s.st.Installed:
		return "not installed"
	case s.err != nil:
		return fmt.Sprintf("installed (%s), state unknown: %v", s.st.File, s.err)
	case s.st.Running:
		return fmt.Sprintf("%s, running (%s)", s.st.Platform, s.st.Detail)
	default:
		return fmt.Sprintf("%s, installed but not running (%s)", s.st.Platform, s.st.Detail)
	}
}
