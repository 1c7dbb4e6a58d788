package main

import (
	"bytes"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

type manOptions struct {
	*app
	dir string
}

func newCmdMan(a *app) *cobra.Command {
	o := &manOptions{app: a}
	cmd := &cobra.Command{
		Use:   "man [--dir DIR]",
		Short: "Print the manual pages (roff), made by cobra from the commands' definitions: memoryd man | man -l -",
		Args:  argsAtMost(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMan(cmd.Root(), o)
		},
	}
	cmd.Flags().StringVar(&o.dir, "dir", "", "write one page a command into `DIR` (memoryd.1, memoryd-add.1, ...) instead of printing them all")
	return cmd
}

// manHeader is the pages' title line.
func manHeader() *doc.GenManHeader {
	now := time.Now()
	return &doc.GenManHeader{Section: "1", Date: &now, Source: "memoryd " + version(), Manual: "User Commands"}
}

// runMan writes the pages into o.dir (releases do), or prints memoryd(1)
// and then every command's page, one stream that `man -l -` reads whole.
func runMan(root *cobra.Command, o *manOptions) error {
	root.DisableAutoGenTag = true
	if o.dir != "" {
		return doc.GenManTree(root, manHeader(), o.dir)
	}
	return writeManPages(o.stdout, root, manHeader())
}

func writeManPages(w io.Writer, root *cobra.Command, h *doc.GenManHeader) error {
	var b bytes.Buffer
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if c != root && (!c.IsAvailableCommand() || c.Name() == "help") {
			continue
		}
		hc := *h
		if err := doc.GenMan(c, &hc, &b); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
