package status

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/cost"
	"github.com/memoryd/memoryd/internal/daemon"
	"github.com/memoryd/memoryd/internal/gitstore"
)

// Print writes r as `memoryd status` shows it, its times relative to now.
func Print(w io.Writer, r Report, now time.Time) {
	fmt.Fprintf(w, "memory folder  %s\nstate folder   %s\ndaemon         %s\n", r.MemoryDir, r.StateDir, daemonLine(r, now))
	if r.Service != "" {
		fmt.Fprintf(w, "service        %s\n", r.Service)
	}
	s := r.Daemon
	if r.Running && s != nil {
		fmt.Fprintf(w, "memories       %d (index %d lines, %d bytes)\n", s.Index.Files, s.Index.Lines, s.Index.Bytes)
	}
	if s != nil {
		fmt.Fprintf(w, "last rebuild   %s\n", RelTime(s.Index.RebuiltAt, now))
	}
	commit := "none yet"
	if c := r.LastCommit; c != nil {
		commit = fmt.Sprintf("%s %s: %s", gitstore.Short(c.Hash), RelTime(c.At, now), c.Subject)
	}
	fmt.Fprintf(w, "last commit    %s\n", commit)
	printCompaction(w, r.Compaction, now)
	if r.Running && s != nil {
		printSessions(w, s.Extraction, now)
	}
	switch {
	case s != nil && s.Sync.Enabled && r.Running:
		printSync(w, s.Sync, now)
	case r.SyncPending != "":
		fmt.Fprintf(w, "sync           %s\n", r.SyncPending)
	case r.SyncOff != "":
		fmt.Fprintf(w, "sync           off; the notes repository has an upstream (%s): %s\n", r.SyncOff, SyncOnFix(r.cfgPath))
	case s != nil && s.Sync.Enabled:
		printSync(w, s.Sync, now)
	}
	printTokens(w, r.Tokens, now)
	printUnused(w, r.Unused)
	printProblems(w, r.Problems)
}

func printCompaction(w io.Writer, c Compaction, now time.Time) {
	if !c.Enabled {
		fmt.Fprintf(w, "compaction     off (last pass %s)\n", RelTime(c.LastPassAt, now))
		return
	}
	fmt.Fprintf(w, "compaction     churn %d of %d, last pass %s", c.Churn, c.ChurnLimit, RelTime(c.LastPassAt, now))
	if !c.NextCheckAt.IsZero() {
		fmt.Fprintf(w, ", next check %s", RelTime(c.NextCheckAt, now))
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
		fmt.Fprintf(w, ", last extracted %s %s (%d written)", x.LastSession, RelTime(x.LastAt, now), x.LastWritten)
	}
	fmt.Fprintln(w)
}

// printSync is status's sync line.
func printSync(w io.Writer, s daemon.SyncStatus, now time.Time) {
	remote := s.Remote
	if remote == "" {
		remote = "the remote"
	}
	fmt.Fprintf(w, "sync           %s: %d ahead, %d behind", remote, s.Ahead, s.Behind)
	switch {
	case s.Paused != "":
		fmt.Fprint(w, ", paused")
	case !s.OfflineSince.IsZero():
		fmt.Fprintf(w, ", offline since %s", RelTime(s.OfflineSince, now))
	}
	fmt.Fprintf(w, ", last sync %s", RelTime(s.LastSyncAt, now))
	if n := len(s.Review); n > 0 {
		fmt.Fprintf(w, ", %d for review", n)
	}
	printSyncNext(w, s, now)
	fmt.Fprintln(w)
}

// printSyncNext is the end of status's sync line: when the next round
// runs, and that memoryd sync runs one now.
func printSyncNext(w io.Writer, s daemon.SyncStatus, now time.Time) {
	switch {
	case s.Running:
		fmt.Fprint(w, "; a round runs now")
	case !s.NextAt.IsZero():
		fmt.Fprintf(w, "; next round %s (memoryd sync runs one now)", RelTime(s.NextAt, now))
	}
}

// SyncOnFix is how to turn sync on, in status's words; cfgPath is the
// configuration file, "" when none is known.
func SyncOnFix(cfgPath string) string {
	where := "the config file"
	if cfgPath != "" {
		where = cfgPath
	}
	return "to sync the memory through it, memoryd install --sync (or set sync.enabled: true in " + where + "), then memoryd restart"
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
			cost.Group(t.Today), cost.Group(t.DailyLimit), RelTime(t.ResumesAt, now))
	}
}

// printUnused prints the proposal: how many, the first few, and the command.
func printUnused(w io.Writer, u *Unused) {
	if u == nil {
		return
	}
	names := strings.Join(u.Files[:min(3, len(u.Files))], ", ")
	if len(u.Files) > 3 {
		names += ", …"
	}
	noun := "facts"
	if len(u.Files) == 1 {
		noun = "fact"
	}
	fmt.Fprintf(w, "unused         %d %s no agent used in %s, for review (never deleted on their own): %s — %s, then memoryd forget NAME or pin it\n",
		len(u.Files), noun, u.After, names, u.Command)
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
func daemonLine(r Report, now time.Time) string {
	d := r.Daemon
	switch {
	case r.Running && d != nil:
		return fmt.Sprintf("running (pid %d, started %s)", d.PID, RelTime(d.StartedAt, now))
	case r.Running:
		return "running"
	case d == nil:
		return "not running (never started for this folder)"
	case r.crashed:
		return fmt.Sprintf("not running (pid %d was killed or crashed; last seen %s)", d.PID, RelTime(d.UpdatedAt, now))
	default:
		return fmt.Sprintf("not running (pid %d stopped %s)", d.PID, RelTime(d.UpdatedAt, now))
	}
}

// RelTime says when t is from now in words: "just now", "40 s ago",
// "2 min ago", "3 h ago", "5 days ago", or "in 8 min" for a time to come,
// and "never" for the zero time. Each figure is rounded to its unit.
func RelTime(t, now time.Time) string {
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
