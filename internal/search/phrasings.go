package search

import (
	"cmp"
	"context"
	"errors"
	"slices"
)

// Several phrasings of one need. A model asking memory can say what it
// looks for in two or three ways ("which server do we deploy staging to",
// "staging host"); each phrasing is searched as a query of its own and the
// rankings are fused into one, so a fact that one phrasing's words miss
// and another's find is still found, and a fact every phrasing finds
// ranks first.
const (
	maxPhrasings  = 5  // phrasings searched, Words included; the rest are ignored
	phrasingDepth = 30 // hits of each phrasing's ranking fused
)

// phrasingFusion is how the rankings of the phrasings are fused: "raw", a
// fact's Σ score (the phrasing whose words match best weighs most; the
// scores are of one index, so they compare), "score", its Σ score/best
// score of each ranking (each ranking counts alike), or "rrf", its
// Σ 1/(rrfK + rank). On the recall benchmark's two phrasings of each
// question, at 10,000 facts, raw gave MRR 0.91, score 0.86 and rrf 0.49
// (docs/PERFORMANCE.md). A var so the benchmark can compare them.
var phrasingFusion = "raw"

// searchPhrasings answers a query with Phrasings: first searches Words
// (Search or FreshSearch, which makes the index fresh for the rest), and
// Search each other phrasing. A phrasing without words is skipped;
// ErrNoWords only when none has any.
func (x *Index) searchPhrasings(ctx context.Context, q Query, first func(context.Context, Query) ([]Hit, error)) ([]Hit, error) {
	want := q.Limit
	if want <= 0 {
		want = DefaultLimit
	}
	want = min(want, MaxLimit)
	phrasings := slices.DeleteFunc(append([]string{q.Words}, q.Phrasings...), func(s string) bool { return !parseQuery(s).any })
	var lists [][]Hit
	for i, words := range phrasings[:min(len(phrasings), maxPhrasings)] {
		one := q
		one.Words, one.Phrasings, one.Limit = words, nil, max(want, phrasingDepth)
		search := x.Search
		if i == 0 {
			search = first
		}
		hits, err := search(ctx, one)
		if errors.Is(err, ErrNoWords) {
			continue
		} else if err != nil {
			return nil, err
		}
		lists = append(lists, hits)
	}
	if lists == nil {
		return nil, ErrNoWords
	}
	return fuseHits(lists, want), nil
}

// fuseHits fuses rankings of hits by file into the best limit, each hit as
// the ranking where it ranked best found it (its snippet and explanation)
// with the fused score. Ties go to the earlier ranking's order.
func fuseHits(lists [][]Hit, limit int) []Hit {
	type fused struct {
		hit         Hit
		score       float64
		bestRank    int
		first, rank int // the ranking and rank it was first met at, for ties
	}
	byFile := make(map[string]*fused)
	var all []*fused
	for li, hits := range lists {
		if len(hits) == 0 {
			continue
		}
		top := hits[0].Score
		for rank, h := range hits {
			part := 1 / float64(rrfK+rank+1)
			switch {
			case phrasingFusion == "raw":
				part = h.Score
			case phrasingFusion == "score" && top > 0:
				part = h.Score / top
			}
			f := byFile[h.File]
			if f == nil {
				f = &fused{hit: h, bestRank: rank, first: li, rank: rank}
				byFile[h.File] = f
				all = append(all, f)
			} else if rank < f.bestRank {
				f.hit, f.bestRank = h, rank
			}
			f.score += part
		}
	}
	slices.SortStableFunc(all, func(a, b *fused) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.rank, b.rank), cmp.Compare(a.first, b.first))
	})
	out := make([]Hit, 0, min(limit, len(all)))
	for _, f := range all[:min(limit, len(all))] {
		f.hit.Score = round3(f.score)
		out = append(out, f.hit)
	}
	return out
}
