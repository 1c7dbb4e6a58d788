package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/install"
)

type importOptions struct {
	*app
	dryRun bool
}

func newCmdImport(a *app) *cobra.Command {
	o := &importOptions{app: a}
	cmd := &cobra.Command{
		Use:       "import claude [--dry-run]",
		Short:     "Bring Claude Code's auto-memory facts into the memory folder, in one commit; Claude Code's files are left as they are.",
		ValidArgs: []string{"claude"},
		Args:      cobra.MatchAll(exactArgs(1, "say where to import from: memoryd import claude"), oneOfArg(0, "source", []string{"claude"})),
		RunE:      func(cmd *cobra.Command, _ []string) error { return runImport(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "say what would be imported and skipped, and write nothing")
	return cmd
}

func runImport(ctx context.Context, o *importOptions) error {
	e := o.env
	home := e.getenv("HOME")
	if home == "" {
		return errors.New("HOME is not set")
	}
	f, err := openFolder(e, o.global)
	if err != nil {
		return err
	}
	dir := install.ClaudeDir(home, e.getenv("CLAUDE_CONFIG_DIR"))
	found, problems, err := install.ReadClaudeMemory(dir, time.Now())
	if err != nil {
		return err
	}
	dry := o.dryRun
	items := make([]facts.Item, len(found))
	for i, c := range found {
		items[i] = c.Item
	}
	w := f.writer("import")
	message := func(n int) string {
		return fmt.Sprintf("memory: import %d %s from Claude Code", n, plural(n, "fact", "facts"))
	}
	results, commit, err := w.SaveAll(ctx, items, message, dry)
	if err != nil {
		return err
	}
	n := install.PrintImported(e.stdout, results, found, problems, home, dry)
	printImportSummary(e.stdout, f, n, len(found)+len(problems), commit, dir, home, dry)
	return nil
}

// printImportSummary says in one line what the import did.
func printImportSummary(w io.Writer, f *folder, n, seen int, commit, dir, home string, dry bool) {
	switch {
	case seen == 0:
		fmt.Fprintf(w, "no Claude Code memory found in %s\n", filepath.Join(install.TildePath(dir, home), "projects", "*", "memory"))
	case dry:
		fmt.Fprintf(w, "dry run: %d %s would be imported; nothing was written\n", n, plural(n, "fact", "facts"))
	case n == 0:
		fmt.Fprintln(w, "nothing new to import")
	case commit != "":
		fmt.Fprintf(w, "imported %d %s (commit %s)\n", n, plural(n, "fact", "facts"), gitstore.Short(commit))
	case f.repo == nil:
		fmt.Fprintf(w, "imported %d %s (not committed: %s)\n", n, plural(n, "fact", "facts"), f.gitProblem())
	default:
		fmt.Fprintf(w, "imported %d %s\n", n, plural(n, "fact", "facts"))
	}
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
