package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
)

type contextOptions struct {
	*app
	dir         string
	projectOnly bool
	json        bool
}

func newCmdContext(a *app) *cobra.Command {
	o := &contextOptions{app: a}
	cmd := &cobra.Command{
		Use:   "context [--dir=DIR] [--project-only] [--json]",
		Short: "Print what an agent should load at session start in DIR: MEMORY.md and DIR's project index, within the budget.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runContext(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.dir, "dir", "", "the session's working `DIR` (default: the current directory)")
	cmd.MarkFlagDirname("dir")
	cmd.Flags().BoolVar(&o.projectOnly, "project-only", false, "the project's index alone (for agents that already load MEMORY.md)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON: the project and the text")
	return cmd
}

// runContext runs at every agent session start, so it reads as little as
// it can: the generated index files as the daemon keeps them when they fit
// the budget together, else the facts themselves. A missing memory folder
// is a one-line notice on stderr, not a failure: the agent starts anyway.
func runContext(ctx context.Context, o *contextOptions) error {
	e := o.env
	cfg, _, err := loadConfig(e, o.global)
	if err != nil {
		return err
	}
	dir := o.dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	slug := project.Slug(dir)
	if fi, err := os.Stat(cfg.MemoryDir); err != nil || !fi.IsDir() {
		fmt.Fprintf(e.stderr, "memoryd: no memory folder at %s (memoryd install sets one up)\n", cfg.MemoryDir)
		return nil
	}
	freshenForSession(e, o.global, cfg, time.Now())
	b := index.Budget{Lines: cfg.Index.MaxLines, Bytes: cfg.Index.MaxBytes}
	only := o.projectOnly
	text, err := index.ReadContext(cfg.MemoryDir, slug, b, only, contextHold(e, cfg.MemoryDir))
	if err != nil {
		return err
	}
	countListed(e, cfg.MemoryDir, text)
	// A listed fact whose cited files changed since it was written or
	// confirmed is marked on its line; the index files stay as built (the
	// same files give the same bytes), the mark is this session's.
	chk := cite.NewChecker(dir)
	text = cite.MarkLines(text, func(file string) string {
		return cite.Marker(chk.File(cfg.MemoryDir, file).Changes)
	})
	text = append(text, teamSection(ctx, e, o.global, cfg.MemoryDir, dir, b)...)
	if o.json {
		return writeJSON(e.stdout, map[string]string{"project": slug, "text": string(text)})
	}
	_, err = e.stdout.Write(text)
	return err
}
