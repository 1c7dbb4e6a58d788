package main

import (
	"context"
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/mcpserver"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/warm"
)

func newCmdMCP(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memory to an agent as an MCP server on stdin and stdout (agents start it; memoryd install wires it).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runMCP(cmd.Context(), a) },
	}
}

// runMCP serves until the client closes stdin or a signal comes. Start-up
// reads the configuration and resolves the folder, nothing more: every
// agent session starts this process, so the search index is opened on the
// first search and the files are read by the call that needs them.
func runMCP(ctx context.Context, a *app) error {
	e := a.env
	f, err := openFolder(e, a.global)
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	ls := &warm.Lazy{StateDir: f.stateDir, Dir: f.dir, Embedder: embedder(f), Fusion: f.cfg.Embed.Fusion, Log: f.log,
		Ask: func(ctx context.Context, q search.Query) ([]search.Hit, bool, error) { return askWarm(ctx, f, q) }}
	defer ls.Close()
	s := mcpserver.New(mcpserver.Options{
		Dir:     f.dir,
		Project: project.Slug(cwd),
		Root:    project.Root(cwd),
		Cites:   cite.NewChecker(cwd),
		Version: version(),
		Search:  mcpserver.SearchWith(ls.Search),
		Writer:  f.modelWriter,
		Used:    f.countUse,
		Gate:    f.gate(),
		Team:    mcpTeam(f, cwd),
	})
	err = s.Run(ctx, mcpserver.Transport(os.Stdin, os.Stdout))
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil // a signal: the client is going away
	}
	return err
}
