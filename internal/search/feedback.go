package search

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
)

// Pseudo-relevance feedback: the words that the first facts found have in
// common, and the question has not, are searched for too, at a fraction of
// a question word's weight, and the facts ranked again. It helps when the
// question and the fact use different words for one thing and a few facts
// that use both are found first; it hurts when those first facts are
// wrong. feedbackDocs is how many first facts are read (0 switches it
// off), feedbackTerms how many of their words are added, each weighing
// feedbackWeight of a question word. See docs/PERFORMANCE.md for what it
// gave on the recall benchmark.
var (
	feedbackDocs   = 0
	feedbackTerms  = 5
	feedbackWeight = 0.3
)

// feedbackCandidates is how many of the first facts' words, by their
// counts, have their postings read to weigh them by rarity.
const feedbackCandidates = 12

// feedback scores s again with the words the first facts of top share,
// and reports whether it added any.
func (x *Index) feedback(ctx context.Context, conn *sql.Conn, v *view, s *scorer, p parsed, top []candidate) (bool, error) {
	if feedbackDocs <= 0 || len(top) == 0 {
		return false, nil
	}
	weight, err := feedbackWeights(ctx, conn, top[:min(feedbackDocs, len(top))], askedStems(p))
	if err != nil {
		return false, err
	}
	cands := make([]string, 0, len(weight))
	for st := range weight {
		cands = append(cands, st)
	}
	byWeight := func(a, b string) int { return cmp.Or(cmp.Compare(weight[b], weight[a]), cmp.Compare(a, b)) }
	slices.SortFunc(cands, byWeight)
	cands = cands[:min(feedbackCandidates, len(cands))]
	// Weighed by rarity: a word every fact has says nothing.
	type scored struct {
		stem  string
		lists []*formList
		score float64
	}
	var picks []scored
	for _, st := range cands {
		lists, err := x.stemLists(ctx, conn, v, st)
		if err != nil {
			return false, err
		}
		df := 0
		for _, l := range lists {
			df += len(l.ids)
		}
		if df < 2 {
			continue // only the first facts have it: it finds nothing new
		}
		picks = append(picks, scored{st, lists, weight[st] * idf(v.docs.count, df)})
	}
	slices.SortFunc(picks, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.stem, b.stem)) })
	for _, pk := range picks[:min(feedbackTerms, len(picks))] {
		s.scoreWord([]*alt{{word: pk.stem, stem: pk.stem, exact: pk.stem, weight: feedbackWeight, kind: "feedback", lists: pk.lists}})
	}
	return len(picks) > 0, nil
}

// askedStems are the stems of the query's words and of their synonyms:
// feedback adds none of them again.
func askedStems(p parsed) map[string]bool {
	asked := make(map[string]bool)
	for _, w := range p.words {
		asked[stem(w)] = true
		for _, syn := range synonyms[stem(w)] {
			asked[syn] = true
		}
	}
	return asked
}

// feedbackWeights is each stem's share of each of the first facts first,
// summed — a stem all of them use weighs more than one a single long fact
// repeats — leaving out the asked stems and those under 3 letters.
func feedbackWeights(ctx context.Context, conn *sql.Conn, first []candidate, asked map[string]bool) (map[string]float64, error) {
	weight := make(map[string]float64)
	for _, c := range first {
		var name, title, description, body string
		if err := conn.QueryRowContext(ctx, `SELECT name, title, description, body FROM fact WHERE id = ?`, c.id).
			Scan(&name, &title, &description, &body); err != nil {
			return nil, err
		}
		counts := make(map[string]int)
		n := 0
		for _, text := range []string{name, title, description, body} {
			terms(text, func(t term) bool {
				if st := stem(t.text); !asked[st] && len(st) >= 3 {
					counts[st]++
					n++
				}
				return true
			})
		}
		for st, k := range counts {
			weight[st] += float64(k) / float64(n)
		}
	}
	return weight, nil
}
