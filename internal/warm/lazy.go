package warm

import (
	"context"
	"log/slog"
	"sync"

	"github.com/memoryd/memoryd/internal/search"
)

// Lazy answers an MCP server's searches: the daemon's warm index first
// (Ask); without a daemon it opens the search index on the first search
// and keeps it warm itself (Local: the folder is checked again only when a
// watcher saw it change). Its methods may be called from any goroutine.
type Lazy struct {
	StateDir, Dir string
	Embedder      search.Embedder // nil: search by words alone
	Fusion        string          // search.Index.SetFusion
	// Ask asks the daemon's warm index first; ok false: no daemon
	// answers, and the index is opened here.
	Ask func(context.Context, search.Query) (hits []search.Hit, ok bool, err error)
	Log *slog.Logger

	mu    sync.Mutex // guards x and local
	x     *search.Index
	local *Local // x kept warm by a watcher of the folder
}

func (l *Lazy) index() (*Local, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.x == nil {
		x, err := search.Open(l.StateDir, l.Dir)
		if err != nil {
			return nil, err
		}
		x.SetEmbedder(l.Embedder)
		x.SetFusion(l.Fusion)
		l.x, l.local = x, NewLocal(x, l.Dir, l.Log)
		l.local.Start()
	}
	return l.local, nil
}

// Close stops the watcher and closes the index, when they were opened.
func (l *Lazy) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.x != nil {
		l.local.Stop()
		l.x.Close()
	}
}

// Search is q's hits, from the daemon or from the index kept here.
func (l *Lazy) Search(ctx context.Context, q search.Query) ([]search.Hit, error) {
	hits, ok, err := l.Ask(ctx, q)
	if !ok {
		x, xerr := l.index()
		if xerr != nil {
			return nil, xerr
		}
		hits, err = x.Search(ctx, q)
	}
	return hits, err
}
