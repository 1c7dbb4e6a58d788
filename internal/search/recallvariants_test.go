package search

import (
	"fmt"
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
// plain BM25 as the same run's baseline.
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
		{"2-2-1.5-1", weights([numFields]float64{2, 2, 1.5, 1})},
	})
}
