package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/embed/embedtest"
)

// BenchmarkEmbedSearch is issue 29's bound on the second signal: with a
// fake embeddings endpoint on 127.0.0.1 answering in 5 ms (deterministic
// vectors of 768 dimensions, embedtest.Hashed), 10,000 facts all with
// vectors, a `memoryd search` through the daemon ≤ the same search with
// embeddings off (words only, another store of the same facts with its
// own daemon) + 10 ms. Whole processes, in pairs (one of each, in turn),
// medians of each and of the pairs' differences, per round.
//
//	go test -run '^$' -bench EmbedSearch -benchtime 1x ./cmd/memoryd/
func BenchmarkEmbedSearch(b *testing.B) {
	const runs, rounds = 40, 3
	for b.Loop() {
		srv := embedtest.New(b)
		srv.SetVector(func(text string) []float32 { return embedtest.Hashed(text, 768) })
		srv.SetDelay(5 * time.Millisecond)
		embedEnv := []string{"MEMORY_EMBED_BASE_URL=" + srv.URL, "MEMORY_EMBED_MODEL=fake-768", "MEMORY_EMBED_TIMEOUT_MS=1000"}
		fused, words := embedWorld(b, embedEnv), embedWorld(b, nil)
		fp, wp := fused.startDaemon(embedEnv...), words.startDaemon()
		waitFor(b, "the warm sockets", func() bool { return warmAnswers(fused) && warmAnswers(words) })
		// Embedding 10,000 facts takes longer than waitFor's patience.
		for deadline := time.Now().Add(5 * time.Minute); len(srv.Inputs()) < 10000 || !searchFused(fused); {
			if time.Now().After(deadline) {
				b.Fatalf("the daemon embedded %d texts in 5 minutes", len(srv.Inputs()))
			}
			time.Sleep(500 * time.Millisecond)
		}
		for r := range rounds {
			calls := srv.Calls()
			f, w, d := pairedSearches(b, fused, words, runs, r)
			if got := srv.Calls() - calls; got < runs {
				b.Fatalf("round %d: the endpoint embedded %d queries for %d searches", r, got, runs)
			}
			b.ReportMetric(f, fmt.Sprintf("round%d-fused-ms", r+1))
			b.ReportMetric(w, fmt.Sprintf("round%d-words-ms", r+1))
			b.ReportMetric(d, fmt.Sprintf("round%d-fused-over-words-ms", r+1))
		}
		fp.stop(b)
		wp.stop(b)
	}
}

// embedWorld is a world of 10,000 facts (writeFacts), rebuilt and
// committed, with extra in its environment.
func embedWorld(b *testing.B, extra []string) *world {
	w := newWorld(b)
	w.env = append(w.env, extra...)
	writeFacts(w, 10000)
	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		b.Fatalf("rebuild: %s", out)
	}
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "facts")
	return w
}

// searchFused reports whether a search through w's daemon fused the two
// rankings with the last fact's vector among them.
func searchFused(w *world) bool {
	out, _ := w.runCmd(nil, "search", "--explain", "Fact 9999 about topic4 and widget9999")
	return strings.Contains(out, "fused") && strings.Contains(out, "fact-09999")
}

// pairedSearches runs `memoryd search` in a and b in turn, runs times
// each, and returns the medians of a, of b, and of a − b in each pair.
func pairedSearches(tb *testing.B, a, b *world, runs, round int) (ma, mb, md float64) {
	var da, db, diff []float64
	for i := range runs {
		q := fmt.Sprintf("which fact mentions widget%d", 3+(i+round*runs)*97%9990)
		ta, tb2 := timeSearch(tb, a, q), timeSearch(tb, b, q)
		da, db, diff = append(da, ta), append(db, tb2), append(diff, ta-tb2)
	}
	return median(da), median(db), median(diff)
}

func timeSearch(b *testing.B, w *world, q string) float64 {
	cmd := exec.Command(binPath, "search", q)
	cmd.Env, cmd.Dir = w.env, w.home
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	took := msOf(time.Since(t0))
	if err != nil || !strings.Contains(string(out), "widget") {
		b.Fatalf("search %q: %v\n%s", q, err, out)
	}
	return took
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
