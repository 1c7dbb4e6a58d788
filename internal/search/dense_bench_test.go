package search

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/embed"
	"github.com/memoryd/memoryd/internal/embed/embedtest"
)

// fakeEmbedder embeds in-process, with embedtest.Hashed: what a search
// costs on its own side of the second signal, without the endpoint's time.
type fakeEmbedder struct{ dim int }

func (f fakeEmbedder) Model() string { return fmt.Sprintf("fake-%d", f.dim) }
func (f fakeEmbedder) Query(_ context.Context, text string) ([]float32, error) {
	return embedtest.Hashed(text, f.dim), nil
}
func (f fakeEmbedder) Batch(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = embedtest.Hashed(t, f.dim)
	}
	return out, nil
}

// BenchmarkFused10k is a fused search at 10,000 facts with vectors of 384
// and 768 dimensions: in the daemon or the MCP server (the vectors read
// once, then kept), and as a command (Find: the index opened, the vectors
// read, the search, the index closed). The query is embedded in-process.
func BenchmarkFused10k(b *testing.B) {
	for _, dim := range []int{384, 768} {
		x := benchIndex(b)
		e := fakeEmbedder{dim}
		x.SetEmbedder(e)
		start := time.Now()
		for {
			more, err := x.FillVectors(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if !more {
				break
			}
		}
		b.Logf("%d dimensions: FillVectors of 10,000 facts took %s", dim, time.Since(start).Round(time.Millisecond))
		common := benchWord(b, x, true)
		q := Query{Words: common + " " + question30(x), Project: "memoryd", All: true}
		x.Search(context.Background(), q) // the vectors read, as a long-lived process has them
		b.Run(fmt.Sprintf("search-%d", dim), func(b *testing.B) {
			defer startCPU().report(b)
			for b.Loop() {
				hits, err := x.Search(context.Background(), q)
				if err != nil || len(hits) == 0 || hits[0].Explain != nil {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
		})
		b.Run(fmt.Sprintf("command-%d", dim), func(b *testing.B) {
			q := q
			q.Embedder = e
			defer startCPU().report(b)
			for b.Loop() {
				if _, err := Find(context.Background(), x.stateDir, x.memoryDir, q); err != nil {
					b.Fatal(err)
				}
			}
		})
		q.Embedder = nil
		x.SetEmbedder(nil)
		b.Run(fmt.Sprintf("lexical-%d", dim), func(b *testing.B) {
			defer startCPU().report(b)
			for b.Loop() {
				if _, err := x.Search(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFusedEndpoint10k is the daemon's side of a fused search at
// 10,000 facts of 768 dimensions with a fake endpoint on 127.0.0.1
// answering in 5 ms (embed.Client, as the daemon has it): the query's
// embedding alone, the fused search, and the same search by words alone.
//
//	go test -run '^$' -bench FusedEndpoint10k -benchtime 200x ./internal/search/
func BenchmarkFusedEndpoint10k(b *testing.B) {
	x := benchIndex(b)
	x.SetEmbedder(fakeEmbedder{768})
	for more := true; more; {
		var err error
		if more, err = x.FillVectors(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	srv := embedtest.New(b)
	srv.SetVector(func(t string) []float32 { return embedtest.Hashed(t, 768) })
	srv.SetDelay(5 * time.Millisecond)
	c, err := embed.New(embed.Options{BaseURL: srv.URL, Model: "fake-768", Timeout: time.Second,
		StateDir: b.TempDir(), DailyTokens: 1e9, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	q := Query{Words: "which fact mentions " + question30(x), Project: "memoryd", All: true}
	b.Run("embed-query", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Query(context.Background(), q.Words); err != nil {
				b.Fatal(err)
			}
		}
	})
	x.SetEmbedder(c)
	for _, label := range []string{"fused", "words"} {
		if label == "words" {
			x.SetEmbedder(nil)
		}
		x.Search(context.Background(), q) // the vectors read once
		b.Run(label, func(b *testing.B) {
			for b.Loop() {
				if _, err := x.Search(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	c.Wait()
}
