package search

import (
	"context"
	"database/sql"
	"slices"
)

// Best-passage scoring. A long fact's whole-body score is diluted by its
// length, though one of its paragraphs may answer the query as well as a
// short fact does. So the first passageDepth facts by the words are
// scored again: a fact whose body is longer than 2×passageTerms adds
// passageWeight × the score of its best window of passageTerms terms
// (BM25 of the query's words and their forms in the window, with no
// length norm: every window is as long). Measured on the recall
// benchmark's facts made long (BenchmarkRecallPassages) it did not help —
// MRR 0.832 → 0.826 at weight 0.5 on 1,000 developer facts, 0.593 →
// 0.589 at 10,000 — so it is off (passageWeight 0), kept to be measured
// on data with long facts (docs/PERFORMANCE.md).
const (
	passageTerms = 40 // terms of a window; windows start every passageTerms/2
	passageDepth = 50 // facts scored again
)

// passageWeight is what the best passage adds, as a share of its score;
// 0 switches it off. A var so the recall benchmark can compare settings.
var passageWeight = 0.0

// passageForm is what one form of a fact's body is to a query: which word
// it matches and how much an occurrence counts.
type passageForm struct {
	word   int     // index into scorer.words
	weight float64 // alt weight × idf
	factor float64 // stemFactor for a form of the stem but not the word
}

// passageTop returns the best k facts of s that f lets through, the first
// passageDepth of them scored again by their best passage.
func (x *Index) passageTop(ctx context.Context, conn *sql.Conn, s *scorer, f filter, k int) ([]candidate, error) {
	if passageWeight <= 0 {
		return s.top(f, k, nil), nil
	}
	top := s.top(f, max(k, passageDepth), nil)
	forms := make(map[string][]passageForm)
	for w, alts := range s.words {
		for _, a := range alts {
			for _, l := range a.lists {
				pf := passageForm{word: w, weight: a.weight * a.idf, factor: 1}
				if a.stemmed(l.form) {
					pf.factor = stemFactor
				}
				forms[l.form] = append(forms[l.form], pf)
			}
		}
	}
	for i := range top {
		c := &top[i]
		if s.docs.docs[c.id].lens[fieldBody] <= 2*passageTerms {
			continue
		}
		var body string
		if err := conn.QueryRowContext(ctx, `SELECT body FROM fact WHERE id = ?`, c.id).Scan(&body); err != nil {
			return nil, err
		}
		c.passage = bestPassage(body, forms, len(s.words))
		c.text += passageWeight * c.passage
		c.score = c.text * c.boost
	}
	slices.SortFunc(top, s.better)
	return top[:min(k, len(top))], nil
}

// bestPassage returns the score of body's best window for the query whose
// words' forms are forms.
func bestPassage(body string, forms map[string][]passageForm, words int) float64 {
	var seq [][]passageForm // the body's terms, nil for those of no word
	terms(body, func(t term) bool {
		seq = append(seq, forms[t.text])
		return true
	})
	best := 0.0
	tf := make([]float64, words)
	weight := make([]float64, words)
	for start := 0; start < len(seq); start += passageTerms / 2 {
		clear(tf)
		for _, pfs := range seq[start:min(start+passageTerms, len(seq))] {
			for _, pf := range pfs {
				tf[pf.word] += pf.factor
				weight[pf.word] = max(weight[pf.word], pf.weight)
			}
		}
		sc := 0.0
		for w, n := range tf {
			if n > 0 {
				sc += weight[w] * n * (k1 + 1) / (k1 + n)
			}
		}
		best = max(best, sc)
		if start+passageTerms >= len(seq) {
			break
		}
	}
	return best
}
