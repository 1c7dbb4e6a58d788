package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

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
	ls := &lazySearch{stateDir: f.stateDir, dir: f.dir, embedder: embedder(f), fusion: f.cfg.Embed.Fusion, log: f.log,
		warm: func(ctx context.Context, q search.Query) ([]search.Hit, bool, error) { return askWarm(ctx, f, q) }}
	defer ls.close()
	s := mcpserver.New(mcpserver.Options{
		Dir:     f.dir,
		Project: project.Slug(cwd),
		Root:    project.Root(cwd),
		Cites:   cite.NewChecker(cwd),
		Version: version(),
		Search:  ls.search,
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

// lazySearch asks the daemon's warm index; without a daemon it opens the
// search index on the first search and keeps it warm itself (warm.Local:
// the folder is checked again only when a watcher saw it change).
type lazySearch struct {
	stateDir, dir string
	embedder      search.Embedder // nil: search by words alone
	fusion        string          // search.Index.SetFusion
	// warm asks the daemon's warm index first (askWarm); ok false: no
	// daemon answers, and the index is opened here.
	warm func(context.Context, search.Query) (hits []search.Hit, ok bool, err error)

	log *slog.Logger

	mu    sync.Mutex // guards x and local
	x     *search.Index
	local *warm.Local // x kept warm by a watcher of the folder
}

func (l *lazySearch) index() (*warm.Local, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.x == nil {
		x, err := search.Open(l.stateDir, l.dir)
		if err != nil {
			return nil, err
		}
		x.SetEmbedder(l.embedder)
		x.SetFusion(l.fusion)
		l.x, l.local = x, warm.NewLocal(x, l.dir, l.log)
		l.local.Start()
	}
	return l.local, nil
}

func (l *lazySearch) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.x != nil {
		l.local.Stop()
		l.x.Close()
	}
}

func (l *lazySearch) search(ctx context.Context, q mcpserver.Query) ([]mcpserver.Hit, error) {
	sq := search.Query{Words: q.Words, Phrasings: q.Phrasings, Project: q.Project, All: q.All, Type: q.Type, Limit: q.Limit, AllVersions: q.AllVersions}
	hits, ok, err := l.warm(ctx, sq)
	if !ok {
		x, xerr := l.index()
		if xerr != nil {
			return nil, xerr
		}
		hits, err = x.Search(ctx, sq)
	}
	if errors.Is(err, search.ErrNoWords) {
		return nil, fmt.Errorf("the query %q has no words to look for", q.Words)
	}
	if err != nil {
		return nil, err
	}
	out := make([]mcpserver.Hit, len(hits))
	for i, h := range hits {
		out[i] = mcpserver.Hit{File: h.File, Title: hitTitle(h), Description: h.Description, Project: h.Project, Snippet: h.Snippet, SupersededBy: h.SupersededBy}
	}
	return out, nil
}

// hitTitle is the title the index shows: frontmatter title, else the name
// with hyphens as spaces and the first letter upper-cased.
func hitTitle(h search.Hit) string {
	if h.Title != "" {
		return h.Title
	}
	t := strings.ReplaceAll(h.Name, "-", " ")
	if t != "" {
		t = strings.ToUpper(t[:1]) + t[1:]
	}
	return t
}
