package search

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/embed"
	"github.com/memoryd/memoryd/internal/embed/embedtest"
	"github.com/memoryd/memoryd/internal/state"
)

// lockedBuffer is a log a search's goroutines may write to at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// denseFacts: the Thursday fact shares no word with the question about
// shipping, and the fake endpoint maps both to one topic.
var denseFacts = []fact{
	{typ: "project", name: "thursday-cadence", description: "Customers get new builds on Thursdays", body: "Tag the build after the standup."},
	{typ: "reference", name: "shipping-labels", description: "Shipping labels printer", body: "The label printer in the hall takes 4x6 shipping labels."},
	{typ: "user", name: "editor", description: "Prefers vim", body: "Uses vim with the default keys."},
	{typ: "feedback", name: "tests-first", description: "Write the test first", body: "A bug fix starts with a failing test."},
}

const shipQuery = "when do we ship to production"

func shipTopics() func(string) []float32 {
	return embedtest.Topics(8, []string{"customers get new builds", "ship to production"}, []string{"vim"})
}

// denseSetup makes the folder, the fake endpoint and a client of it with
// a log, and fills the vectors.
func denseSetup(t *testing.T) (*folder, *Index, *embedtest.Server, *embed.Client, *lockedBuffer) {
	t.Helper()
	f := newFolder(t, denseFacts...)
	srv := embedtest.New(t)
	srv.SetVector(shipTopics())
	logs := &lockedBuffer{}
	c, err := embed.New(embed.Options{BaseURL: srv.URL, Model: "fake-embed", Timeout: 200 * time.Millisecond,
		StateDir: f.stateDir, DailyTokens: 1_000_000, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	x := f.open()
	x.SetEmbedder(c)
	if err := x.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	fill(t, x)
	return f, x, srv, c, logs
}

func fill(t *testing.T, x *Index) {
	t.Helper()
	for range 100 {
		more, err := x.FillVectors(context.Background())
		if err != nil {
			t.Fatalf("FillVectors: %v", err)
		}
		if !more {
			return
		}
	}
	t.Fatal("FillVectors never done")
}

func lexical(t *testing.T, f *folder, words string) []string {
	t.Helper()
	hits, err := Find(context.Background(), f.stateDir, f.memoryDir, Query{Words: words})
	if err != nil {
		t.Fatal(err)
	}
	return files(hits)
}

func TestFusedFindsFactWithoutSharedWords(t *testing.T) {
	f, x, _, _, _ := denseSetup(t)
	thursday := denseFacts[0].file()
	if got := lexical(t, f, shipQuery); slices.Contains(got, thursday) {
		t.Fatalf("the words alone find %s: %q; the test needs a fact they miss", thursday, got)
	}
	hits, err := x.Search(context.Background(), Query{Words: shipQuery, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	got := files(hits)
	at := slices.Index(got, thursday)
	if at < 0 || at > 1 {
		t.Fatalf("fused search = %q, want %s in the top 2", got, thursday)
	}
	if fu := hits[at].Explain.Fusion; fu == nil || fu.Vector != 1 || fu.Lexical != 0 || fu.Cosine != 1 {
		t.Errorf("explain fusion: %+v", fu)
	}
	// The words' own match is still found, after it.
	if !slices.Contains(got, denseFacts[1].file()) {
		t.Errorf("fused search lost the words' match: %q", got)
	}
	// Find with the embedder in the Query does the same from a new Index.
	hits, err = Find(context.Background(), f.stateDir, f.memoryDir, Query{Words: shipQuery, Embedder: x.getEmbedder()})
	if err != nil || !slices.Contains(files(hits), thursday) {
		t.Errorf("Find with an embedder = %q, %v", files(hits), err)
	}
}

// failOpen checks a search that cannot use its embeddings: the words'
// results, no error, soon, and the reason in the log.
func failOpen(t *testing.T, f *folder, x *Index, logs *lockedBuffer, reason string) {
	t.Helper()
	want := lexical(t, f, shipQuery)
	start := time.Now()
	hits, err := x.Search(context.Background(), Query{Words: shipQuery, Explain: true})
	if err != nil {
		t.Fatalf("search failed: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("search took %s", d)
	}
	if got := files(hits); !slices.Equal(got, want) {
		t.Errorf("search = %q, want the words' %q", got, want)
	}
	for _, h := range hits {
		if h.Explain.Fusion != nil {
			t.Errorf("%s fused: %+v", h.File, h.Explain.Fusion)
		}
	}
	if !strings.Contains(logs.String(), reason) {
		t.Errorf("log does not say %q:\n%s", reason, logs)
	}
}

func TestFusedEndpointDown(t *testing.T) {
	f, x, srv, _, logs := denseSetup(t)
	srv.Close()
	failOpen(t, f, x, logs, "embeddings call failed")
}

func TestFusedEndpointSlow(t *testing.T) {
	f, x, srv, _, logs := denseSetup(t)
	srv.SetDelay(3 * time.Second)
	failOpen(t, f, x, logs, "no answer within 200ms")
}

func TestFusedGarbageAnswer(t *testing.T) {
	f, x, srv, _, logs := denseSetup(t)
	srv.SetBroken(`{"data":[{"embedding":"nope"}]}`)
	failOpen(t, f, x, logs, "unreadable answer")
}

func TestFusedWrongDimensions(t *testing.T) {
	f, x, srv, _, logs := denseSetup(t)
	topics := shipTopics()
	srv.SetVector(func(s string) []float32 { return topics(s)[:6] })
	failOpen(t, f, x, logs, "the query's vector has 6 dimensions")
	// The next fill embeds every fact again, and the search fuses again.
	fill(t, x)
	got := find(t, x, Query{Words: shipQuery})
	if !slices.Contains(got, denseFacts[0].file()) {
		t.Errorf("after embedding again: %q", got)
	}
}

func TestFusedOverBudget(t *testing.T) {
	f, x, srv, _, logs := denseSetup(t)
	if _, err := state.UpdateTokens(f.stateDir, state.AddTokens(time.Now(), "extract", 1_000_000)); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	failOpen(t, f, x, logs, "daily token budget")
	if srv.Calls() != calls {
		t.Errorf("%d calls over budget", srv.Calls()-calls)
	}
	// Nor does the background embed anything.
	f.write(fact{typ: "user", name: "new-one", description: "A new fact", body: "Fresh text."})
	if err := x.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := x.FillVectors(context.Background()); err == nil {
		t.Error("FillVectors over budget: no error")
	}
	if srv.Calls() != calls {
		t.Errorf("%d calls over budget", srv.Calls()-calls)
	}
}

func TestNoEmbedderSaysNothing(t *testing.T) {
	f := newFolder(t, denseFacts...)
	x := f.open()
	hits, err := x.Search(context.Background(), Query{Words: shipQuery, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Explain.Fusion != nil {
			t.Errorf("%s fused without an embedder", h.File)
		}
	}
	if more, err := x.FillVectors(context.Background()); more || err != nil {
		t.Errorf("FillVectors without an embedder: %v, %v", more, err)
	}
}

func TestFillVectors(t *testing.T) {
	f, x, srv, _, _ := denseSetup(t)
	n := len(srv.Inputs())
	if n != len(denseFacts) {
		t.Fatalf("embedded %d texts, want %d", n, len(denseFacts))
	}
	// Nothing new: no call.
	fill(t, x)
	if got := len(srv.Inputs()); got != n {
		t.Errorf("filled again: %d texts", got-n)
	}
	// A changed fact is embedded again, a removed one loses its vector.
	f.write(fact{typ: "user", name: "editor", description: "Prefers emacs", body: "Uses emacs."})
	f.remove(denseFacts[3].file())
	if err := x.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	fill(t, x)
	if got := srv.Inputs()[n:]; len(got) != 1 || !strings.Contains(got[0], "emacs") {
		t.Errorf("embedded %q, want the changed fact", got)
	}
	var rows int
	x.db.QueryRow(`SELECT count(*) FROM vector`).Scan(&rows)
	if rows != len(denseFacts)-1 {
		t.Errorf("%d vectors for %d facts", rows, len(denseFacts)-1)
	}
	// Another model: everything again.
	c2, err := embed.New(embed.Options{BaseURL: srv.URL, Model: "other-model"})
	if err != nil {
		t.Fatal(err)
	}
	x.SetEmbedder(c2)
	fill(t, x)
	var models []string
	rs, _ := x.db.Query(`SELECT DISTINCT model FROM vector`)
	for rs.Next() {
		var m string
		rs.Scan(&m)
		models = append(models, m)
	}
	rs.Close()
	if !slices.Equal(models, []string{"other-model"}) {
		t.Errorf("models stored: %q", models)
	}
}

// TestFillVectorsBatches checks that one call embeds a bounded batch.
func TestFillVectorsBatches(t *testing.T) {
	var facts []fact
	for i := range fillBatch + 5 {
		facts = append(facts, fact{typ: "reference", name: "f" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), description: "d", body: "b"})
	}
	f := newFolder(t, facts...)
	srv := embedtest.New(t)
	c, err := embed.New(embed.Options{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	x := f.open()
	x.SetEmbedder(c)
	if err := x.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	more, err := x.FillVectors(context.Background())
	if err != nil || !more || len(srv.Inputs()) != fillBatch {
		t.Fatalf("first call: more %v, err %v, %d texts", more, err, len(srv.Inputs()))
	}
	more, err = x.FillVectors(context.Background())
	if err != nil || more || len(srv.Inputs()) != fillBatch+5 {
		t.Fatalf("second call: more %v, err %v, %d texts", more, err, len(srv.Inputs()))
	}
}
