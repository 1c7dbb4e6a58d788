package main

import (
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/embed/embedtest"
)

// TestSearchEmbeddings: with an embeddings endpoint, the daemon embeds the
// facts and search finds one that shares no word with the question, its
// fused scores under --explain (ranks with embed.fusion rrf); with the endpoint gone, search answers by
// words, exit 0; without one configured it says nothing of embeddings.
func TestSearchEmbeddings(t *testing.T) {
	srv := embedtest.New(t)
	srv.SetVector(embedtest.Topics(8, []string{"customers get new builds", "ship to production"}))
	w := newWorld(t)
	addFact(t, w, "project", "thursday-cadence", "Customers get new builds on Thursdays", "Tag the build after the standup.")
	addFact(t, w, "reference", "shipping-labels", "Shipping labels printer", "The printer in the hall takes 4x6 shipping labels.")
	embedEnv := []string{"MEMORY_EMBED_BASE_URL=" + srv.URL, "MEMORY_EMBED_MODEL=fake-embed", "MEMORY_EMBED_TIMEOUT_MS=2000"}

	out, code := w.runCmd(nil, "search", "--explain", "when do we ship to production")
	if code != 0 || strings.Contains(out, "thursday-cadence") || strings.Contains(out, "fused") {
		t.Fatalf("search without embeddings:\n%s", out)
	}

	d := w.startDaemon(embedEnv...)
	waitFor(t, "the facts' vectors", func() bool {
		out, code = w.runCmd(embedEnv, "search", "--explain", "when do we ship to production")
		return strings.Contains(out, "thursday-cadence")
	})
	rrf, _ := w.runCmd(append(embedEnv, "MEMORY_EMBED_FUSION=rrf"), "search", "--explain", "when do we ship to production")
	d.stop(t)
	if code != 0 || !strings.Contains(out, "project-thursday-cadence.md") || !strings.Contains(out, "fused z-scores of the words' score and the cosine: words -, embeddings #1 (cosine 1.000)") {
		t.Fatalf("search with embeddings:\n%s", out)
	}
	if !strings.Contains(rrf, "fused ranks: words -, embeddings #1") {
		t.Errorf("search with embed.fusion rrf does not say it fused ranks:\n%s", rrf)
	}
	srv.Close()
	out, code = w.runCmd(embedEnv, "search", "--explain", "when do we ship to production")
	if code != 0 || strings.Contains(out, "thursday-cadence") || !strings.Contains(out, "shipping-labels") {
		t.Fatalf("search with the endpoint down:\n%s", out)
	}
}
