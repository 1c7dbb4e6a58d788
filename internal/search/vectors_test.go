package search

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/embed"
	"github.com/memoryd/memoryd/internal/embed/embedtest"
)

// TestQuantizedCosine: int8 vectors give the float32 cosine within 0.01,
// and the same top 10 of 2,000 random 768-dimension vectors.
func TestQuantizedCosine(t *testing.T) {
	const n, dim = 2000, 768
	r := rand.New(rand.NewPCG(1, 2))
	randUnit := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return unit(v)
	}
	q := randUnit()
	qi := quantizeQuery(q)
	exact := make([]float64, n)
	approx := make([]float64, n)
	for i := range n {
		v := randUnit()
		for j := range v {
			exact[i] += float64(v[j] * q[j])
		}
		approx[i] = float64(decodeFactVecs(encodeVector(v), dim).best(qi))
		if d := math.Abs(exact[i] - approx[i]); d > 0.01 {
			t.Fatalf("vector %d: cosine %.4f, int8 %.4f", i, exact[i], approx[i])
		}
	}
	top := func(s []float64) []int {
		ids := make([]int, n)
		for i := range ids {
			ids[i] = i
		}
		slices.SortFunc(ids, func(a, b int) int { return -cmpFloat(s[a], s[b]) })
		return ids[:10]
	}
	// Near ties may swap; the ten are the same.
	a, b := top(exact), top(approx)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Errorf("top 10: float32 %v, int8 %v", a, b)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestNoEndpointCallWithoutVectors: with an endpoint configured but no
// vector stored yet, a search neither calls nor waits for the endpoint.
func TestNoEndpointCallWithoutVectors(t *testing.T) {
	f := newFolder(t, denseFacts...)
	srv := embedtest.New(t)
	srv.SetVector(shipTopics())
	srv.SetDelay(300 * time.Millisecond)
	c, err := embed.New(embed.Options{BaseURL: srv.URL, Model: "fake-embed", Timeout: 2 * time.Second,
		StateDir: f.stateDir, DailyTokens: 1_000_000, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	x := f.open()
	x.SetEmbedder(c)
	start := time.Now()
	for _, search := range []func(context.Context, Query) ([]Hit, error){x.Search, x.FreshSearch} {
		if hits, err := search(context.Background(), Query{Words: "shipping labels"}); err != nil || len(hits) == 0 {
			t.Fatalf("search = %v, %v", files(hits), err)
		}
	}
	if hits, err := Find(context.Background(), f.stateDir, f.memoryDir, Query{Words: "shipping labels", Embedder: c}); err != nil || len(hits) == 0 {
		t.Fatalf("Find = %v, %v", files(hits), err)
	}
	if n := srv.Calls(); n != 0 {
		t.Errorf("the endpoint was called %d times with no vector stored", n)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("three searches took %v: they waited for the endpoint", d)
	}
	// Once vectors are stored, the query is embedded again.
	srv.SetDelay(0)
	fill(t, x)
	before := srv.Calls()
	if _, err := x.Search(context.Background(), Query{Words: shipQuery}); err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != before+1 {
		t.Errorf("with vectors stored the query was not embedded (%d calls)", srv.Calls()-before)
	}
}

// TestVectorsHeldAcrossCommits: the vectors read by one search stay held
// when the index changes; only the rows stored since are read, and a new
// fact's vector counts in the next search.
func TestVectorsHeldAcrossCommits(t *testing.T) {
	f, x, _, _, _ := denseSetup(t)
	ctx := context.Background()
	if _, err := x.Search(ctx, Query{Words: shipQuery}); err != nil {
		t.Fatal(err)
	}
	st := x.vecs
	if st == nil || len(st.byHash) != len(denseFacts) {
		t.Fatalf("vectors held after a search: %+v", st)
	}
	held := make(map[string]*factVecs)
	for h, fv := range st.byHash {
		held[h] = fv
	}
	added := fact{typ: "project", name: "release-day", description: "Releases", body: "Customers get new builds from the release train."}
	f.write(added)
	if err := x.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	fill(t, x)
	hits, err := x.Search(ctx, Query{Words: shipQuery, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files(hits), added.file()) {
		t.Errorf("the new fact's vector is not used: %q", files(hits))
	}
	if x.vecs != st || len(st.byHash) != len(denseFacts)+1 {
		t.Fatalf("the held vectors were replaced or not added to (%d)", len(x.vecs.byHash))
	}
	for h, fv := range held {
		if st.byHash[h] != fv {
			t.Errorf("the vector of %s was read again", h)
		}
	}
}

// TestZScoreFusion: a fact the words find far ahead of the rest stays
// first under z-score fusion though two facts are a little closer by
// cosine, while reciprocal rank fusion puts the runner-up of the words,
// first by cosine, first.
func TestZScoreFusion(t *testing.T) {
	docs := &docTable{docs: make([]doc, 5)}
	s := newScorer(docs)
	lex := []candidate{{id: 0, score: 20, boost: 1}, {id: 1, score: 5, boost: 1}, {id: 2, score: 4.8, boost: 1},
		{id: 3, score: 4.5, boost: 1}, {id: 4, score: 4, boost: 1}}
	vec := []ranked{{id: 1, cosine: 0.62}, {id: 2, cosine: 0.6}, {id: 0, cosine: 0.58}, {id: 3, cosine: 0.4}, {id: 4, cosine: 0.3}}
	for _, c := range []struct {
		mode  string
		first int32
	}{{FusionZScore, 0}, {"", 0}, {FusionRRF, 1}} {
		fu := fusing{s: s, vs: &vectors{}, mode: c.mode}
		got := fu.fuse(slices.Clone(lex), vec, 5)
		if got[0].id != c.first {
			t.Errorf("%q fusion ranks %d first, want %d: %+v", c.mode, got[0].id, c.first, got)
		}
		if got[0].fusion == nil || got[0].fusion.Lexical == 0 || got[0].fusion.Vector == 0 {
			t.Errorf("%q fusion: ranks not kept: %+v", c.mode, got[0].fusion)
		}
	}
}

// TestLongFactBestPassage: a long fact one paragraph of which is about the
// query is as close to it as that paragraph, though its whole text is
// about something else; its vectors are bounded in number.
func TestLongFactBestPassage(t *testing.T) {
	filler := strings.Repeat("The quarterly report covers budgets, hiring plans and office moves in detail. ", 6)
	var paras []string
	for i := range 8 {
		paras = append(paras, fmt.Sprintf("Section %d. %s", i, filler))
	}
	paras[2] = "Customers get new builds every second Thursday, after the standup. " + filler
	long := fact{typ: "project", name: "quarterly-report", description: "The Q3 summary", body: strings.Join(paras, "\n\n")}
	f := newFolder(t, long, denseFacts[2], denseFacts[3])
	srv := embedtest.New(t)
	// The whole text has the description: its vector is the summary's
	// topic; the paragraph's (headed by the name) is the shipping topic.
	srv.SetVector(embedtest.Topics(8, []string{"q3 summary"}, []string{"customers get new builds", "ship to production"}))
	c, err := embed.New(embed.Options{BaseURL: srv.URL, Model: "fake-embed", Timeout: time.Second,
		StateDir: f.stateDir, DailyTokens: 1_000_000, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	x := f.open()
	x.SetEmbedder(c)
	if err := x.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	fill(t, x)
	hits, err := x.Search(context.Background(), Query{Words: shipQuery, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].File != long.file() || hits[0].Explain.Fusion == nil || hits[0].Explain.Fusion.Cosine < 0.99 {
		t.Fatalf("search = %+v, want %s first by its passage's cosine", hits, long.file())
	}
	if k := len(x.vecs.byHash[hashOf(t, x, long.file())].scale); k < 2 || k > 1+maxPassages {
		t.Errorf("the long fact has %d vectors, want 2..%d", k, 1+maxPassages)
	}
	// A row from before passages (the whole text's vector alone) is
	// embedded again, passages and all; a short fact's row is kept.
	var data []byte
	var dim int
	h := hashOf(t, x, long.file())
	x.db.QueryRow(`SELECT data, dim FROM vector WHERE hash = ?`, h).Scan(&data, &dim)
	if _, err := x.db.Exec(`UPDATE vector SET data = ? WHERE hash = ?`, data[:4*dim], h); err != nil {
		t.Fatal(err)
	}
	n := len(srv.Inputs())
	fill(t, x)
	var again int
	for _, in := range srv.Inputs()[n:] {
		if strings.Contains(in, "quarterly") {
			again++
		}
	}
	x.db.QueryRow(`SELECT data, dim FROM vector WHERE hash = ?`, h).Scan(&data, &dim)
	if again < 2 || len(srv.Inputs())-n != again || len(data) < 2*4*dim {
		t.Errorf("an old single-vector row of a long fact: %d texts embedded again (%d of it), %d vectors stored; want its whole text and passages alone",
			len(srv.Inputs())-n, again, len(data)/(4*dim))
	}
}

func hashOf(t *testing.T, x *Index, file string) string {
	t.Helper()
	var h string
	if err := x.db.QueryRow(`SELECT hash FROM fact WHERE file = ?`, file).Scan(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestVectorTopRecall: the two passes of vectorTop find the true top 50
// (by float32 cosine) of 10,000 vectors of 768 dimensions when 50 of them
// are near the query (cosine about 0.3–0.6, as texts about the same
// thing), and most of it when all are random (nearly orthogonal: the
// worst case for the signs' first pass).
func TestVectorTopRecall(t *testing.T) {
	const n, dim, k = 10000, 768, 50
	r := rand.New(rand.NewPCG(3, 4))
	randUnit := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return unit(v)
	}
	for _, c := range []struct {
		planted, min int
	}{{k, k - 1}, {0, k * 85 / 100}} {
		q := randUnit()
		vs := &vectors{dim: dim, byID: make([]*factVecs, n)}
		docs := &docTable{docs: make([]doc, n)}
		exact := make([]ranked, n)
		for i := range n {
			v := randUnit()
			if i < c.planted {
				w := 0.3 + 0.3*float32(i)/k
				for j := range v {
					v[j] = w*q[j] + (1-w)*v[j]
				}
				v = unit(v)
			}
			vs.byID[i] = decodeFactVecs(encodeVector(v), dim)
			docs.docs[i].present = true
			var dot float32
			for j := range v {
				dot += v[j] * q[j]
			}
			exact[i] = ranked{int32(i), dot}
		}
		slices.SortFunc(exact, func(a, b ranked) int { return cmpFloat(float64(b.cosine), float64(a.cosine)) })
		got := vectorTop(vs, docs, filter{all: true}, quantizeQuery(q), k)
		found := 0
		for _, e := range exact[:k] {
			if slices.ContainsFunc(got, func(g ranked) bool { return g.id == e.id }) {
				found++
			}
		}
		t.Logf("%d near neighbours: %d of the true top %d found", c.planted, found, k)
		if found < c.min {
			t.Errorf("%d near neighbours: %d of the true top %d found, want %d", c.planted, found, k, c.min)
		}
	}
}
