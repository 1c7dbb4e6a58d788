package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
)

// SearchWith is the SearchFunc over find, a search of the folder's search
// index (warm.Lazy's): the query and hits in memory_search's terms.
func SearchWith(find func(context.Context, search.Query) ([]search.Hit, error)) SearchFunc {
	return func(ctx context.Context, q Query) ([]Hit, error) {
		sq := search.Query{Words: q.Words, Phrasings: q.Phrasings, Project: q.Project, All: q.All, Type: q.Type, Limit: q.Limit, AllVersions: q.AllVersions}
		hits, err := find(ctx, sq)
		if errors.Is(err, search.ErrNoWords) {
			return nil, fmt.Errorf("the query %q has no words to look for", q.Words)
		}
		if err != nil {
			return nil, err
		}
		out := make([]Hit, len(hits))
		for i, h := range hits {
			out[i] = Hit{File: h.File, Title: HitTitle(h), Description: h.Description, Project: h.Project, Snippet: h.Snippet, SupersededBy: h.SupersededBy}
		}
		return out, nil
	}
}

// HitTitle is the title the index shows for a hit (index.TitleOf: the
// frontmatter title, else the name with hyphens as spaces and its first
// letter upper-cased, else the file).
func HitTitle(h search.Hit) string { return index.TitleOf(h.Title, h.Name, h.File) }
