package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// recallVariant is one setting of the ranking that the recall benchmark
// compares with the others: set changes it and returns what restores it.
type recallVariant struct {
	name string
	set  func() (restore func())
}

// benchRecallVariants runs the recall benchmark (synonyms off, as its
// headline) for each variant on both corpora at 1,000 and 10,000 facts,
// and reports @1, @5, @10 and MRR of memoryd on all questions and of the
// plain BM25 as the same run's baseline, and memoryd's latency.
func benchRecallVariants(b *testing.B, variants []recallVariant) {
	saved := synonyms
	synonyms = map[string][]string{}
	defer func() { synonyms = saved }()
	for _, v := range variants {
		for _, c := range recallCorpora {
			for _, n := range []int{1000, 10000} {
				b.Run(fmt.Sprintf("%s/%s/facts=%d", v.name, c.name, n), func(b *testing.B) {
					restore := v.set()
					defer restore()
					var r recallResult
					for b.Loop() {
						r = runRecall(b, c.make(n))
					}
					m, base := r.memoryd["all"], r.baseline["all"]
					for _, k := range []int{1, 5, 10} {
						b.ReportMetric(m.at[k], fmt.Sprintf("@%d", k))
					}
					b.ReportMetric(m.mrr, "MRR")
					b.ReportMetric(base.at[5], "bm25@5")
					b.ReportMetric(base.mrr, "bm25-MRR")
					lat := slices.Clone(r.latency)
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				})
			}
		}
	}
}

// BenchmarkRecallWeights compares field weights (name, title, description,
// body) on the recall benchmark:
//
//	go test -run '^$' -bench RecallWeights -benchtime 1x ./internal/search/
func BenchmarkRecallWeights(b *testing.B) {
	weights := func(w [numFields]float64) func() func() {
		return func() func() {
			saved := fieldWeights
			fieldWeights = w
			return func() { fieldWeights = saved }
		}
	}
	benchRecallVariants(b, []recallVariant{
		{"3-3-2-1", weights([numFields]float64{3, 3, 2, 1})},
		{"1-1-1-1", weights([numFields]float64{1, 1, 1, 1})},
		{"2-2-1-1", weights([numFields]float64{2, 2, 1, 1})},
	})
}

// BenchmarkRecallTypos compares typo tolerance off and on, on the recall
// benchmark's questions as written and with a typo in each (withTypos):
//
//	go test -run '^$' -bench RecallTypos -benchtime 1x ./internal/search/
func BenchmarkRecallTypos(b *testing.B) {
	saved := recallCorpora
	defer func() { recallCorpora = saved }()
	for _, c := range saved {
		recallCorpora = append(recallCorpora, struct {
			name string
			make func(n int) recallCorpus
		}{c.name + "+typos", func(n int) recallCorpus { return withTypos(c.make(n)) }})
	}
	weight := func(w float64) func() func() {
		return func() func() {
			saved := typoWeight
			typoWeight = w
			return func() { typoWeight = saved }
		}
	}
	benchRecallVariants(b, []recallVariant{{"off", weight(0)}, {"0.3", weight(0.3)}, {"0.5", weight(0.5)}, {"0.8", weight(0.8)}})
}

// withTypos returns c with one typo in each question, as people make
// them: in a word of 5 letters or more picked at random, a letter left
// out, doubled, replaced by its neighbour on the keyboard's row, or two
// letters swapped. A question without such a word is left as it is.
func withTypos(c recallCorpus) recallCorpus {
	out := recallCorpus{facts: c.facts}
	for i, q := range c.questions {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		words := strings.Fields(q.words)
		var long []int
		for k, w := range words {
			if len(w) >= 5 && correctable(w) {
				long = append(long, k)
			}
		}
		if len(long) > 0 {
			k := long[r.IntN(len(long))]
			words[k] = typo(words[k], r)
		}
		q.words = strings.Join(words, " ")
		out.questions = append(out.questions, q)
	}
	return out
}

// typo makes one typo in w (ASCII letters, 5 or more).
func typo(w string, r *rand.Rand) string {
	const row = "qwertyuiopasdfghjklzxcvbnm"
	i := 1 + r.IntN(len(w)-2) // not the first or last letter: people see those
	switch r.IntN(4) {
	case 0:
		return w[:i] + w[i+1:]
	case 1:
		return w[:i] + w[i:i+1] + w[i:]
	case 2:
		k := strings.IndexByte(row, w[i]|0x20)
		if k < 0 {
			return w[:i] + w[i+1:]
		}
		return w[:i] + string(row[(k+1)%len(row)]) + w[i+1:]
	}
	return w[:i] + w[i+1:i+2] + w[i:i+1] + w[i+2:]
}

// BenchmarkRecallPhrasings compares the fusion of several phrasings of
// one question (Query.Phrasings): on the developer corpus, whose two
// questions of a fact are two phrasings of one need, each alone and both
// fused by reciprocal rank or by score:
//
//	go test -run '^$' -bench RecallPhrasings -benchtime 1x ./internal/search/
func BenchmarkRecallPhrasings(b *testing.B) {
	saved := recallCorpora
	defer func() { recallCorpora = saved }()
	pick := func(which int) func(n int) recallCorpus {
		return func(n int) recallCorpus {
			c := newRecallCorpus(n)
			out := recallCorpus{facts: c.facts}
			for i := 0; i+1 < len(c.questions); i += 2 {
				partial, reworded := c.questions[i], c.questions[i+1]
				switch which {
				case 0:
					out.questions = append(out.questions, partial)
				case 1:
					out.questions = append(out.questions, reworded)
				default:
					reworded.phrasings = []string{partial.words}
					out.questions = append(out.questions, reworded)
				}
			}
			return out
		}
	}
	fusion := func(how string) func() func() {
		return func() func() {
			saved := phrasingFusion
			phrasingFusion = how
			return func() { phrasingFusion = saved }
		}
	}
	for _, v := range []struct {
		name, fusion string
		which        int
	}{{"partial-alone", "raw", 0}, {"reworded-alone", "raw", 1}, {"both-rrf", "rrf", 2}, {"both-score", "score", 2}, {"both-raw", "raw", 2}} {
		recallCorpora = recallCorpora[:0:0]
		recallCorpora = append(recallCorpora, struct {
			name string
			make func(n int) recallCorpus
		}{"developer", pick(v.which)})
		benchRecallVariants(b, []recallVariant{{v.name, fusion(v.fusion)}})
	}
}

// BenchmarkRecallDescription compares counting a description's words that
// the body's first sentence repeats (skipRepeatedDescription off) with
// leaving them out, at the weights of fieldWeights and at all weights 1:
//
//	go test -run '^$' -bench RecallDescription -benchtime 1x ./internal/search/
func BenchmarkRecallDescription(b *testing.B) {
	set := func(skip bool, w [numFields]float64) func() func() {
		return func() func() {
			savedSkip, savedW := skipRepeatedDescription, fieldWeights
			skipRepeatedDescription, fieldWeights = skip, w
			return func() { skipRepeatedDescription, fieldWeights = savedSkip, savedW }
		}
	}
	benchRecallVariants(b, []recallVariant{
		{"count/3-3-2-1", set(false, [numFields]float64{3, 3, 2, 1})},
		{"skip/3-3-2-1", set(true, [numFields]float64{3, 3, 2, 1})},
		{"skip/1-1-1-1", set(true, [numFields]float64{1, 1, 1, 1})},
	})
}

// BenchmarkRecallPassages compares best-passage scoring (passage.go) off
// and on, on the corpora's facts made long (withPadding):
//
//	go test -run '^$' -bench RecallPassages -benchtime 1x ./internal/search/
func BenchmarkRecallPassages(b *testing.B) {
	saved := recallCorpora
	defer func() { recallCorpora = saved }()
	recallCorpora = nil
	for _, c := range saved {
		recallCorpora = append(recallCorpora, struct {
			name string
			make func(n int) recallCorpus
		}{c.name + "+long", func(n int) recallCorpus { return withPadding(c.make(n)) }})
	}
	weight := func(w float64) func() func() {
		return func() func() {
			saved := passageWeight
			passageWeight = w
			return func() { passageWeight = saved }
		}
	}
	benchRecallVariants(b, []recallVariant{{"off", weight(0)}, {"0.5", weight(0.5)}, {"1", weight(1)}})
}

// withPadding returns c with each fact's body made long, as a note that
// says other things too: between 0 and 6 paragraphs of other text (bodies
// of the everyday corpus for the developer one and the other way round),
// the fact's own body among them at a random place.
func withPadding(c recallCorpus) recallCorpus {
	pool := newEverydayCorpus(600).facts
	if len(c.facts) > 0 && c.facts[0].typ == "user" {
		pool = newRecallCorpus(600).facts
	}
	out := recallCorpus{questions: c.questions}
	for i, f := range c.facts {
		r := rand.New(rand.NewPCG(uint64(i), 11))
		paras := make([]string, 0, 7)
		for range r.IntN(7) {
			paras = append(paras, pool[r.IntN(len(pool))].body)
		}
		at := r.IntN(len(paras) + 1)
		paras = append(paras[:at], append([]string{f.body}, paras[at:]...)...)
		f.body = strings.Join(paras, "\n\n")
		out.facts = append(out.facts, f)
	}
	return out
}

// recallEmbedder and recallFusion, when set, make runRecall fuse an
// embeddings ranking (BenchmarkRecallFusion).
var (
	recallEmbedder Embedder
	recallFusion   string
)

// BenchmarkRecallFusion compares words alone with the words fused with
// the deterministic fake embedder (embedtest.Hashed, 256 dimensions: a
// vector of the words' hashes, so it knows no meaning — this measures the
// fusion's plumbing and how much a weak, noisy second signal disturbs
// the words, not what a real model brings), by z-scores and by
// reciprocal rank fusion:
//
//	go test -run '^$' -bench RecallFusion -benchtime 1x ./internal/search/
func BenchmarkRecallFusion(b *testing.B) {
	set := func(e Embedder, mode string) func() (restore func()) {
		return func() func() {
			recallEmbedder, recallFusion = e, mode
			return func() { recallEmbedder, recallFusion = nil, "" }
		}
	}
	benchRecallVariants(b, []recallVariant{
		{"words", set(nil, "")},
		{"zscore", set(fakeEmbedder{256}, FusionZScore)},
		{"rrf", set(fakeEmbedder{256}, FusionRRF)},
	})
}

// BenchmarkRecallEverydayQuestions is the recall benchmark with 1,000
// questions of the everyday corpus instead of 200, to tell a ranking's
// difference from the luck of which topics 200 questions happen to ask:
//
//	go test -run '^$' -bench RecallEverydayQuestions -benchtime 1x ./internal/search/
func BenchmarkRecallEverydayQuestions(b *testing.B) {
	saved := recallCorpora
	defer func() { recallCorpora = saved }()
	recallCorpora = recallCorpora[1:2]
	set := func(n int) func() func() {
		return func() func() {
			saved := everydayQuestionFacts
			everydayQuestionFacts = n
			return func() { everydayQuestionFacts = saved }
		}
	}
	benchRecallVariants(b, []recallVariant{{"200", set(200)}, {"1000", set(1000)}})
}

// BenchmarkRecallThesaurus compares the related words of the thesaurus
// (related.go) off and at three weights:
//
//	go test -run '^$' -bench RecallThesaurus -benchtime 1x ./internal/search/
func BenchmarkRecallThesaurus(b *testing.B) {
	needThesaurus(b)
	weight := func(w float64) func() func() {
		return func() func() {
			saved := relatedWeight
			relatedWeight = w
			return func() { relatedWeight = saved }
		}
	}
	benchRecallVariants(b, []recallVariant{{"off", noThesaurus}, {"0.3", weight(0.3)}, {"0.5", weight(0.5)}, {"0.7", weight(0.7)}})
}
