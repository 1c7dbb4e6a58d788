package search

import (
	"cmp"
	"math"
	"slices"
)

// How the word ranking and the vector ranking are fused (Query.Fusion,
// the configuration's embed.fusion).
//
// FusionZScore, the default: over the union of the two rankings'
// candidates (each cut at fuseDepth), each signal — the BM25F score × the
// scope's boost, and the cosine of the fact's closest vector — is turned
// into a z-score (minus the union's mean, over its standard deviation),
// and a fact's fused score is zWords × (1 − denseWeight) + zDense ×
// denseWeight. A fact without a vector counts the mean cosine (z 0).
// Unlike ranks, the scores keep how far ahead a fact is: a fact the words
// match far better than the rest stays first though its cosine is only
// average. A published study on long-conversation memory (arXiv
// 2606.04194) measured it above reciprocal rank fusion (session Hit@1
// 0.752 vs 0.718).
//
// FusionRRF: reciprocal rank fusion, rrfK × Σ 1/(rrfK + rank), as before.
const (
	FusionZScore = "zscore"
	FusionRRF    = "rrf"
)

// rrfK is reciprocal rank fusion's constant; fuseDepth is how deep each
// ranking is fused; denseWeight is the dense z-score's share.
const (
	rrfK        = 60
	fuseDepth   = 50
	denseWeight = 0.5
)

// fusing is one fused search's inputs.
type fusing struct {
	s    *scorer
	f    filter
	vs   *vectors
	q    queryInt8
	mode string
}

// fuseEntry is a candidate of the union with what each ranking says.
type fuseEntry struct {
	c        candidate
	lex, vec int     // 1-based ranks, 0 when not in that ranking
	words    float64 // BM25F × boost
	cosine   float64
	hasVec   bool
}

// fuse merges the word ranking lex (best first) with the vector ranking
// vec and returns the best limit, the fused score in score. A fact the
// words did not find joins as a candidate of its own; ties keep the word
// ranking's order, then the vector's.
func (fu fusing) fuse(lex []candidate, vec []ranked, limit int) []candidate {
	entries := fu.union(lex, vec)
	if fu.mode == FusionRRF {
		for _, e := range entries {
			e.c.score = rrf(e.lex) + rrf(e.vec)
		}
	} else {
		zscores(entries)
	}
	slices.SortStableFunc(entries, func(a, b *fuseEntry) int {
		return cmp.Or(cmp.Compare(b.c.score, a.c.score),
			cmp.Compare(missing(a.lex), missing(b.lex)), cmp.Compare(missing(a.vec), missing(b.vec)))
	})
	out := make([]candidate, len(entries))
	for i, e := range entries {
		e.c.fusion = &Fusion{Mode: cmp.Or(fu.mode, FusionZScore), Lexical: e.lex, Vector: e.vec, Cosine: round3(e.cosine)}
		out[i] = e.c
	}
	return out[:min(limit, len(out))]
}

// union is the candidates of both rankings, the word ranking's first,
// each with both signals.
func (fu fusing) union(lex []candidate, vec []ranked) []*fuseEntry {
	byID := make(map[int32]*fuseEntry, len(lex)+len(vec))
	entries := make([]*fuseEntry, 0, len(lex)+len(vec))
	for i, c := range lex {
		e := &fuseEntry{c: c, lex: i + 1, words: c.score}
		byID[c.id] = e
		entries = append(entries, e)
	}
	for i, r := range vec {
		e := byID[r.id]
		if e == nil {
			d := &fu.s.docs.docs[r.id]
			b := fu.f.boost(d)
			e = &fuseEntry{c: candidate{id: r.id, text: fu.s.total[r.id], boost: b}, words: fu.s.total[r.id] * b}
			byID[r.id] = e
			entries = append(entries, e)
		}
		e.vec, e.cosine, e.hasVec = i+1, float64(r.cosine), true
	}
	for _, e := range entries {
		if !e.hasVec && int(e.c.id) < len(fu.vs.byID) && fu.vs.byID[e.c.id] != nil {
			e.cosine, e.hasVec = float64(fu.vs.byID[e.c.id].best(fu.q)), true
		}
	}
	return entries
}

// zscores sets each entry's score to its weighted z-scores.
func zscores(entries []*fuseEntry) {
	words := meanStd(entries, func(e *fuseEntry) (float64, bool) { return e.words, true })
	dense := meanStd(entries, func(e *fuseEntry) (float64, bool) { return e.cosine, e.hasVec })
	for _, e := range entries {
		score := (1 - denseWeight) * words.z(e.words)
		if e.hasVec {
			score += denseWeight * dense.z(e.cosine)
		}
		e.c.score = score
	}
}

type moments struct{ mean, std float64 }

func (m moments) z(x float64) float64 {
	if m.std == 0 {
		return 0
	}
	return (x - m.mean) / m.std
}

func meanStd(entries []*fuseEntry, value func(*fuseEntry) (float64, bool)) moments {
	var n, sum, sq float64
	for _, e := range entries {
		if x, ok := value(e); ok {
			n, sum, sq = n+1, sum+x, sq+x*x
		}
	}
	if n == 0 {
		return moments{}
	}
	mean := sum / n
	return moments{mean: mean, std: math.Sqrt(max(0, sq/n-mean*mean))}
}

func rrf(rank int) float64 {
	if rank == 0 {
		return 0
	}
	return rrfK / float64(rrfK+rank)
}

// missing orders an absent rank (0) after every present one.
func missing(r int) int {
	if r == 0 {
		return math.MaxInt
	}
	return r
}
