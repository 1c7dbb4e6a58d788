package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memoryd/memoryd/daemon"
	"github.com/memoryd/memoryd/state"
)

func init() {
	register(&command{
		name:    "status",
		args:    "[--json]",
		summary: "Show the daemon's state: last rebuild and commit, churn, next compaction, sessions, problems.",
		flags:   func(fs *flag.FlagSet) { fs.Bool("json", false, "print status.json as JSON") },
		run:     runStatus,
	})
}

// statusReport is what `memoryd status --json` prints.
type statusReport struct {
	MemoryDir string         `json:"memoryDir"`
	StateDir  string         `json:"stateDir"`
	Running   bool           `json:"running"`
	Service   string         `json:"service,omitempty"`
	Daemon    *daemon.Status `json:"daemon,omitempty"`
	Problems  []string       `json:"problems"`
}

func runStatus(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	r := statusReport{MemoryDir: f.dir, StateDir: f.stateDir, Problems: []string{}}
	r.Running = state.Held(f.stateDir, state.DaemonLock)
	r.Service = serviceState(ctx, e)
	var st daemon.Status
	if err := state.ReadJSON(f.stateDir, state.StatusFile, &st); err == nil {
		r.Daemon = &st
	} else if !state.IsNotExist(err) {
		r.Problems = append(r.Problems, err.Error())
	}
	if p := f.gitProblem(); p != "" {
		r.Problems = append(r.Problems, p)
	}
	if r.Daemon != nil {
		r.Problems = append(r.Problems, r.Daemon.Problems()...)
	}
	if !r.Running {
		r.Problems = append(r.Problems, "the daemon is not running (start it with 'memoryd start' or 'memoryd run')")
	}
	if fs.Lookup("json").Value.String() == "true" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printStatus(e.stdout, r)
	return nil
}

func printStatus(w io.Writer, r statusReport) {
	run := "not running"
	if r.Running {
		run = "running"
	}
	fmt.Fprintf(w, "memory folder  %s\nstate folder   %s\ndaemon         %s\n", r.MemoryDir, r.StateDir, run)
	if r.Service != "" {
		fmt.Fprintf(w, "service        %s\n", r.Service)
	}
	if s := r.Daemon; s != nil {
		fmt.Fprintf(w, "memories       %d (index %d lines, %d bytes)\n", s.Index.Files, s.Index.Lines, s.Index.Bytes)
		fmt.Fprintf(w, "last rebuild   %s\n", when(s.Index.RebuiltAt))
		commit := "none yet"
		if s.Git.LastCommit != "" {
			commit = fmt.Sprintf("%s at %s", s.Git.LastCommit[:min(12, len(s.Git.LastCommit))], when(s.Git.LastCommitAt))
		}
		fmt.Fprintf(w, "last commit    %s\n", commit)
		c := s.Compaction
		if c.Enabled {
			fmt.Fprintf(w, "compaction     churn %d, last pass %s, next check %s\n", c.State.Churn, when(c.State.LastCompactedAt), when(c.NextCheckAt))
		} else {
			fmt.Fprintln(w, "compaction     off")
		}
		x := s.Extraction
		if x.Enabled {
			fmt.Fprintf(w, "sessions       %d seen, %d pending", x.Sessions, len(x.Pending))
			if x.LastSession != "" {
				fmt.Fprintf(w, ", last extracted %s at %s (%d written)", x.LastSession, when(x.LastAt), x.LastWritten)
			}
			fmt.Fprintln(w)
		} else {
			fmt.Fprintln(w, "extraction     off")
		}
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "problems       none")
		return
	}
	fmt.Fprintln(w, "problems:")
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  - %s\n", strings.ReplaceAll(p, "\n", "\n    "))
	}
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}
