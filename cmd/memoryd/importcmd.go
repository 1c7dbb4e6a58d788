package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/install"
)

func init() {
	register(&command{
		name:    "import",
		args:    "claude [--dry-run]",
		summary: "Bring Claude Code's auto-memory facts into the memory folder, in one commit; Claude Code's files are left as they are.",
		flags: func(fs *flag.FlagSet) {
			fs.Bool("dry-run", false, "say what would be imported and skipped, and write nothing")
		},
		run: runImport,
	})
}

func runImport(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	if len(args) != 1 {
		return usageError{"say where to import from: memoryd import claude"}
	}
	if err := oneOf("source", args[0], []string{"claude"}); err != nil {
		return err
	}
	home := e.getenv("HOME")
	if home == "" {
		return errors.New("HOME is not set")
	}
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	dir := install.ClaudeDir(home, e.getenv("CLAUDE_CONFIG_DIR"))
	found, problems, err := install.ReadClaudeMemory(dir, time.Now())
	if err != nil {
		return err
	}
	dry := flagString(fs, "dry-run") == "true"
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
	n := printImported(e.stdout, results, found, problems, home, dry)
	printImportSummary(e.stdout, f, n, len(found)+len(problems), commit, dir, home, dry)
	return nil
}

// printImported prints each fact imported (or that would be) and each
// skipped, and returns how many were imported.
func printImported(w io.Writer, results []facts.Result, found []install.ClaudeFact, problems []install.ClaudeProblem, home string, dry bool) int {
	verb := "import"
	if dry {
		verb = "would import"
	}
	n := 0
	for i, r := range results {
		from := tildePath(found[i].Path, home)
		if r.Skipped != nil {
			fmt.Fprintf(w, "skip      %s: %v\n", from, r.Skipped)
			continue
		}
		n++
		scope := "global"
		if p := found[i].Item.Project; p != "" {
			scope = "project " + p
		}
		fmt.Fprintf(w, "%-9s %s (%s) from %s\n", verb, r.File, scope, from)
	}
	for _, p := range problems {
		fmt.Fprintf(w, "skip      %s: %v\n", tildePath(p.Path, home), p.Err)
	}
	return n
}

// printImportSummary says in one line what the import did.
func printImportSummary(w io.Writer, f *folder, n, seen int, commit, dir, home string, dry bool) {
	switch {
	case seen == 0:
		fmt.Fprintf(w, "no Claude Code memory found in %s\n", filepath.Join(tildePath(dir, home), "projects", "*", "memory"))
	case dry:
		fmt.Fprintf(w, "dry run: %d %s would be imported; nothing was written\n", n, plural(n, "fact", "facts"))
	case n == 0:
		fmt.Fprintln(w, "nothing new to import")
	case commit != "":
		fmt.Fprintf(w, "imported %d %s (commit %s)\n", n, plural(n, "fact", "facts"), short(commit))
	case f.repo == nil:
		fmt.Fprintf(w, "imported %d %s (not committed: %s)\n", n, plural(n, "fact", "facts"), f.gitProblem())
	default:
		fmt.Fprintf(w, "imported %d %s\n", n, plural(n, "fact", "facts"))
	}
}

// tildePath writes p under home as ~/….
func tildePath(p, home string) string {
	if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
		return "~" + string(os.PathSeparator) + rel
	}
	return p
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
