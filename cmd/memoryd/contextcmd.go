package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	text, err := contextText(cfg.MemoryDir, slug, b, only, contextHold(e, cfg.MemoryDir))
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
	if o.json {
		return writeJSON(e.stdout, map[string]string{"project": slug, "text": string(text)})
	}
	_, err = e.stdout.Write(text)
	return err
}

// contextText is index.Context for the folder: from the generated files
// when they are there and fit the budget together (built without what the
// gate holds), else from a scan, less what hold holds.
func contextText(dir, slug string, b index.Budget, projectOnly bool, hold func(*index.Memory) bool) ([]byte, error) {
	if text, ok := generatedContext(dir, slug, b, projectOnly); ok {
		return text, nil
	}
	snap, err := index.Scan(dir)
	if err != nil {
		return nil, err
	}
	snap = snap.Without(hold)
	if projectOnly && !hasProject(snap, slug) {
		return nil, nil
	}
	return index.Context(snap, slug, b, projectOnly), nil
}

func hasProject(snap index.Snapshot, slug string) bool {
	for _, p := range snap.Projects() {
		if p.Slug == slug {
			return true
		}
	}
	return false
}

// generatedContext joins MEMORY.md and the project's index as written on
// disk, when both can be read and fit the budget together (a project
// without facts has no index file: MEMORY.md alone).
func generatedContext(dir, slug string, b index.Budget, projectOnly bool) ([]byte, bool) {
	proj, err := index.ReadPlain(dir, index.ProjectIndexFile(slug))
	switch {
	case !project.Valid(slug) || errors.Is(err, fs.ErrNotExist):
		proj = nil
	case err != nil:
		return nil, false
	}
	if projectOnly && proj != nil {
		return proj, true
	}
	if projectOnly {
		return nil, false
	}
	global, err := index.ReadPlain(dir, index.IndexFile)
	if err != nil || (proj == nil && project.Valid(slug) && bytes.Contains(global, []byte("("+index.ProjectIndexFile(slug)+")"))) {
		return nil, false // the index names a project file that is not there yet
	}
	text := global
	if proj != nil {
		text = append(append(global, '\n'), proj...)
	}
	if over, _, _ := b.Over(text); over {
		return nil, false
	}
	return text, true
}
