package search

import (
	"context"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/usage"
)

// BenchmarkSearchCounted10k is what counting the uses of a search's hits
// (package usage: one append to the state folder's usage log, under its
// shared lock) adds to a search at 10,000 facts: the same query without
// counting ("plain") and with it ("counted"), in one run. The log folds
// into its summary as it passes usage.FoldAt, as it would in use.
//
//	go test -run '^$' -bench SearchCounted10k ./internal/search/
func BenchmarkSearchCounted10k(b *testing.B) {
	x := benchIndex(b)
	ctx := context.Background()
	q := Query{Words: benchWord(b, x, true), Project: "memoryd"}
	log := usage.Open(b.TempDir())
	for _, counted := range []bool{false, true} {
		name := "plain"
		if counted {
			name = "counted"
		}
		b.Run(name, func(b *testing.B) {
			defer startCPU().report(b)
			for b.Loop() {
				hits, err := x.Search(ctx, q)
				if err != nil || len(hits) == 0 {
					b.Fatalf("Search: %d hits, %v", len(hits), err)
				}
				if counted {
					files := make([]string, len(hits))
					for i, h := range hits {
						files[i] = h.File
					}
					if err := log.Record(usage.Search, time.Now(), files...); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkUsageRecord is counting alone: one search's ten hits appended.
func BenchmarkUsageRecord(b *testing.B) {
	log := usage.Open(b.TempDir())
	files := []string{"reference-a.md", "project-b.md", "feedback-c.md", "user-d.md", "reference-e.md",
		"sub/reference-f.md", "project-g.md", "feedback-h.md", "user-i.md", "reference-j.md"}
	defer startCPU().report(b)
	for b.Loop() {
		if err := log.Record(usage.Search, time.Now(), files...); err != nil {
			b.Fatal(err)
		}
	}
}
