package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/logfile"
	"github.com/memoryd/memoryd/internal/state"
)

type logsOptions struct {
	*app
	follow bool
	n      int
}

func newCmdLogs(a *app) *cobra.Command {
	o := &logsOptions{app: a}
	cmd := &cobra.Command{
		Use:   "logs [-f] [-n N]",
		Short: "Show the daemon's last log lines, or follow them (-f): the service's journal or log file, else the state folder's.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runLogs(cmd.Context(), o) },
	}
	cmd.Flags().BoolVarP(&o.follow, "follow", "f", false, "follow: keep printing new lines until Ctrl-C")
	cmd.Flags().IntVarP(&o.n, "lines", "n", 50, "show the last `N` lines")
	return cmd
}

// runLogs shows the log where the running daemon writes it: when the
// service is installed and its manager answers, the journal (systemd) or
// the agent's log file (launchd); otherwise the log file every `memoryd
// run` keeps in the state folder.
func runLogs(ctx context.Context, o *logsOptions) error {
	e, n, follow := o.env, o.n, o.follow
	if n < 0 {
		return usageError{"-n must be a number of lines, 0 or more"}
	}
	svc := lookupService(ctx, e)
	if svc.Installed() && svc.Err == nil {
		switch svc.Status.Platform {
		case "systemd":
			return install.Journal(ctx, e.getenv("PATH"), n, follow, e.stdout, e.stderr)
		case "launchd":
			path := filepath.Join(svc.Options.Spec().LogDir, install.LogFile)
			return showLog(ctx, e, path, n, follow, func() error {
				return fmt.Errorf("no log yet at %s: the service has not written any (see 'memoryd status')", path)
			})
		}
	}
	e.log.KeepOutOfFile()
	f, err := openFolder(e, o.global)
	if err != nil {
		return err
	}
	path := filepath.Join(f.stateDir, state.LogFile)
	return showLog(ctx, e, path, n, follow, func() error {
		how := "start it with: " + runLine(f) + " (or 'memoryd install' to run it as a service)"
		if svc.Installed() {
			how = "the service is installed but its manager cannot be reached from here: " + svc.Err.Error() + "; start it by hand with: " + runLine(f)
		}
		return fmt.Errorf("no log yet: no daemon has run for %s; %s", f.dir, how)
	})
}

// showLog prints the last n lines of the log file at path, and follows it.
// missing explains a log that does not exist.
func showLog(ctx context.Context, e env, path string, n int, follow bool, missing func() error) error {
	err := logfile.Show(ctx, e.stdout, path, logfile.ShowOptions{Lines: n, Follow: follow})
	if errors.Is(err, os.ErrNotExist) {
		return missing()
	}
	return err
}
