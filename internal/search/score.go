package search

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// This file scores: BM25F over the fields, each query word's forms and
// their weights (alt), the filter of a query's scope, and the top facts.

// Ranking: BM25F. Each query word scores a fact by the counts of the
// word's forms in each field, weighted by fieldWeights and normalised by
// the field's length against the average (fieldB), saturated by k1 and
// multiplied by the word's idf; a fact's text score is the sum over the
// query's words. A form with the word's stem but not the word itself
// ("translation" for "translations") counts stemFactor of an occurrence, so
// the exact form ranks first; a synonym's forms count synonymWeight of the
// word's score, and a word scores a fact by the best of itself and its
// synonyms. The text score is multiplied by the scope's boost: a fact of the
// current project ranks above an equally good global one, and a global one
// above one of another project, while a much better match still wins across
// scopes. Pinned, then newer, facts win ties.
const (
	k1             = 1.2
	stemFactor     = 0.75
	prefixWeight   = 0.5
	boostProject   = 1.5
	boostGlobal    = 1.0
	boostElsewhere = 0.75
)

var (
	// fieldWeights: name and title 2, description and body 1 — the
	// description no longer above the body, which it often only repeats;
	// measured against 3, 3, 2, 1 and all 1 by BenchmarkRecallWeights
	// (docs/PERFORMANCE.md).
	fieldWeights = [numFields]float64{2, 2, 1, 1}
	fieldB       = [numFields]float64{0.5, 0.5, 0.5, 0.75}
)

// alt is one way a query word matches: its own stem (exact form first),
// a synonym's, or as a prefix.
type alt struct {
	word, stem, exact string
	weight            float64
	kind              string // "" for the word itself, "synonym", "related", "typo", "prefix", "feedback"
	lists             []*formList
	idf               float64 // set by scoreWord
}

// stemmed reports whether form counts stemFactor of an occurrence for a:
// a form of the word's (or its correction's) stem but not the form itself.
func (a *alt) stemmed(form string) bool {
	return (a.kind == "" || a.kind == "typo") && form != a.exact
}

// scorer adds up the scores of the facts of one search.
type scorer struct {
	docs    *docTable
	total   []float64 // text score by id
	touched []int32   // ids with a score
	word    []float64 // the score of the word being scored, by id
	wordHit []int32
	acc     [][numFields]float64 // weighted counts of the alternative being scored
	accHit  []int32
	words   [][]*alt // every word's alternatives, for Explain
}

func newScorer(docs *docTable) *scorer {
	n := len(docs.docs)
	return &scorer{docs: docs, total: make([]float64, n), word: make([]float64, n), acc: make([][numFields]float64, n)}
}

// idf is BM25's inverse document frequency of a term df facts have.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// saturate is BM25F's term score but for idf, from the field-weighted,
// length-normalised counts of a fact.
func (s *scorer) saturate(id int32, acc *[numFields]float64) float64 {
	d := &s.docs.docs[id]
	tf := 0.0
	for f, n := range acc {
		if n == 0 {
			continue
		}
		norm := 1.0
		if avg := s.docs.avg[f]; avg > 0 {
			norm = 1 - fieldB[f] + fieldB[f]*float64(d.lens[f])/avg
		}
		tf += fieldWeights[f] * n / norm
	}
	return tf * (k1 + 1) / (k1 + tf)
}

// scoreWord adds one query word's score to every fact it matches: the best
// of its alternatives.
func (s *scorer) scoreWord(alts []*alt) {
	s.words = append(s.words, alts)
	for _, a := range alts {
		for _, l := range a.lists {
			factor := 1.0
			if a.stemmed(l.form) {
				factor = stemFactor
			}
			for i, id := range l.ids {
				if int(id) >= len(s.docs.docs) || !s.docs.docs[id].present {
					continue
				}
				acc := &s.acc[id]
				if *acc == ([numFields]float64{}) {
					s.accHit = append(s.accHit, id)
				}
				for f, n := range l.tfs[i] {
					acc[f] += float64(n) * factor
				}
			}
		}
		a.idf = idf(s.docs.count, len(s.accHit))
		for _, id := range s.accHit {
			sc := a.weight * a.idf * s.saturate(id, &s.acc[id])
			if s.word[id] == 0 {
				s.wordHit = append(s.wordHit, id)
			}
			s.word[id] = max(s.word[id], sc)
			s.acc[id] = [numFields]float64{}
		}
		s.accHit = s.accHit[:0]
	}
	for _, id := range s.wordHit {
		if s.total[id] == 0 {
			s.touched = append(s.touched, id)
		}
		s.total[id] += s.word[id]
		s.word[id] = 0
	}
	s.wordHit = s.wordHit[:0]
}

// explain returns what each word adds to the score of fact id, best first.
func (s *scorer) explain(id int32) []TermScore {
	var out []TermScore
	for _, alts := range s.words {
		var best TermScore
		for _, a := range alts {
			var acc [numFields]float64
			var sum tfs
			var forms []string
			for _, l := range a.lists {
				i, ok := slices.BinarySearch(l.ids, id)
				if !ok {
					continue
				}
				factor := 1.0
				if a.stemmed(l.form) {
					factor = stemFactor
				}
				for f, n := range l.tfs[i] {
					acc[f] += float64(n) * factor
					sum[f] += n
				}
				forms = append(forms, l.form)
			}
			if forms == nil {
				continue
			}
			sc := a.weight * a.idf * s.saturate(id, &acc)
			if sc <= best.Score {
				continue
			}
			match := a.kind
			if match == "" {
				match = "stem"
				if slices.Contains(forms, a.exact) {
					match = "exact"
				}
			}
			best = TermScore{Word: a.word, Match: match, Forms: forms, Fields: describeFields(sum), IDF: round3(a.idf), Score: round3(sc)}
		}
		if best.Forms != nil {
			out = append(out, best)
		}
	}
	slices.SortStableFunc(out, func(a, b TermScore) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// filter is a query's scope and type.
type filter struct {
	project, typ string
	all          bool
	versions     bool // superseded facts too
}

func newFilter(q Query) filter {
	return filter{project: strings.TrimSpace(q.Project), typ: strings.ToLower(strings.TrimSpace(q.Type)), all: q.All, versions: q.AllVersions}
}

// boost returns the factor of d's scope, 0 when the query leaves it out.
func (f filter) boost(d *doc) float64 {
	if f.typ != "" && d.typeName != f.typ || d.superseded && !f.versions {
		return 0
	}
	switch {
	case d.projectName == f.project:
		return boostProject
	case d.projectName == "":
		return boostGlobal
	case f.all:
		return boostElsewhere
	}
	return 0
}

// candidate is a fact scored, before its row is read.
type candidate struct {
	id      int32
	score   float64
	text    float64
	boost   float64
	prefix  bool
	passage float64 // the best passage's score, when scored (passage.go)
	fusion  *Fusion // set when fused
}

// better orders candidates best first: score, then pinned, then newer,
// then the lower row id.
func (s *scorer) better(a, b candidate) int {
	da, db := &s.docs.docs[a.id], &s.docs.docs[b.id]
	return cmp.Or(cmp.Compare(b.score, a.score), boolCompare(db.pinned, da.pinned),
		cmp.Compare(db.updated, da.updated), cmp.Compare(a.id, b.id))
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// top returns the best k facts scored that f lets through, leaving out
// those in skip, best first.
func (s *scorer) top(f filter, k int, skip map[int32]bool) []candidate {
	// A heap of the best k so far, the worst of them at the root.
	h := make([]candidate, 0, k)
	worse := func(i, j int) bool { return s.better(h[i], h[j]) > 0 }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && worse(r, l) {
				l = r
			}
			if !worse(l, i) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for _, id := range s.touched {
		if skip[id] {
			continue
		}
		b := f.boost(&s.docs.docs[id])
		if b == 0 {
			continue
		}
		c := candidate{id: id, score: s.total[id] * b, text: s.total[id], boost: b}
		if len(h) < k {
			h = append(h, c)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(i, p) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if k > 0 && s.better(c, h[0]) < 0 {
			h[0] = c
			down(0)
		}
	}
	slices.SortFunc(h, s.better)
	return h
}
