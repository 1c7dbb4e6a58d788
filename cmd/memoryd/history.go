package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/undo"
)

type historyOptions struct {
	*app
	n    int
	json bool
}

func newCmdHistory(a *app) *cobra.Command {
	o := &historyOptions{app: a}
	cmd := &cobra.Command{
		Use:   "history [-n N] [--json]",
		Short: "List the memory folder's commits, newest first, with their kind and what 'memoryd undo' can take back.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runHistory(cmd.Context(), o) },
	}
	cmd.Flags().IntVarP(&o.n, "max-count", "n", 20, "number of commits to show")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON: one object a commit, newest first")
	return cmd
}

// runHistory is `memoryd history`. The first column says what undo can
// do: u, 'memoryd undo HASH' takes it back; -, undone already. The second
// marks checkpoints (C) and compactions (*). Then the hash, the date, the
// kind (undo.KindOf; blank for a commit memoryd did not make) and the
// subject.
func runHistory(ctx context.Context, o *historyOptions) error {
	e, n := o.env, o.n
	if n <= 0 {
		return usageError{"-n must be positive"}
	}
	f, err := openFolder(e, o.global)
	if err != nil {
		return err
	}
	repo, err := f.needRepo()
	if err != nil {
		return err
	}
	commits, err := repo.History(n)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(e.stdout, undo.HistoryJSON(undo.Classify(f.dir, commits)))
	}
	if len(commits) == 0 {
		fmt.Fprintln(e.stdout, "no commits touch the memory folder yet")
		return nil
	}
	for _, c := range undo.Classify(f.dir, commits) {
		fmt.Fprintf(e.stdout, "%s %s %s  %-10s  %s\n", c.Mark(), gitstore.Short(c.Hash), c.When.Local().Format("2006-01-02 15:04"), c.Kind, c.Subject)
	}
	fmt.Fprintln(e.stdout, "(u: 'memoryd undo HASH' takes it back, and 'memoryd undo' the newest that is not an undo; -: undone already; C: checkpoint; *: compaction)")
	return nil
}
