package search

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
)

// The second signal, optional: with an embeddings endpoint configured
// (package embed), every fact's text has a vector, kept in the vector
// table keyed by the fact's content hash and the model, filled in the
// background by the daemon (FillVectors) and never by a search. A search
// embeds its query (within the embedder's short time limit, while the
// words are scored), ranks the facts with a vector by cosine — a long
// fact's passages have vectors of their own, and the closest counts — and
// fuses that ranking with the word ranking (fuse.go). No vector stored
// yet, no call to the endpoint: the search is by words. When
// anything about it fails — no endpoint, the endpoint down or slow, the
// day's token budget spent, a garbage answer, vectors of another dimension
// or none stored yet — the search answers by words alone, without an
// error, and the reason goes to the embedder's log.

// Embedder makes the vectors of the second signal (embed.Client).
type Embedder interface {
	// Model names the vectors: those of another model are not comparable.
	Model() string
	// Query embeds a search query, within a short time limit of its own.
	Query(ctx context.Context, text string) ([]float32, error)
	// Batch embeds facts' texts, a vector each in their order.
	Batch(ctx context.Context, texts []string) ([][]float32, error)
}

// Filling: facts embedded per call at most, texts (a fact's whole text
// and its passages) per call at most, and bytes of a text sent (about
// 1,000 tokens).
const (
	fillBatch     = 32
	fillTexts     = 96
	fillTextBytes = 4000
	queryBytes    = 2000 // bytes of a query embedded
)

// Fusion is how the two rankings of a fused search placed a fact; Score is
// their weighted z-scores, or with FusionRRF rrfK × (1/(rrfK+Lexical) +
// 1/(rrfK+Vector)), a missing rank adding nothing (fuse.go).
type Fusion struct {
	Mode    string  `json:"mode"`    // FusionZScore or FusionRRF
	Lexical int     `json:"lexical"` // rank by the words (1 is first); 0 when not among the first 50
	Vector  int     `json:"vector"`  // rank by the embeddings' cosine; 0 when not among the first 50
	Cosine  float64 `json:"cosine"`  // between the query's vector and the fact's closest (its whole text or a passage)
}

// SetEmbedder sets the embedder that FillVectors uses, and that searches
// use when their Query has none. nil turns the second signal off.
func (x *Index) SetEmbedder(e Embedder) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.embedder = e
}

// SetFusion sets how searches fuse the two rankings when their Query does
// not say: FusionZScore ("") or FusionRRF.
func (x *Index) SetFusion(mode string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.fusion = mode
}

func (x *Index) getEmbedder() Embedder {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.embedder
}

// logOf is the embedder's logger when it has one.
func logOf(e Embedder) *slog.Logger {
	if l, ok := e.(interface{ Logger() *slog.Logger }); ok && l.Logger() != nil {
		return l.Logger()
	}
	return slog.New(slog.DiscardHandler)
}

// queryVector is a query's embedding under way.
type queryVector struct {
	model string
	done  chan struct{}
	v     []float32
	err   error
}

// embedQuery starts embedding words with e; nil when e is nil.
func embedQuery(ctx context.Context, e Embedder, words string) *queryVector {
	if e == nil {
		return nil
	}
	qv := &queryVector{model: e.Model(), done: make(chan struct{})}
	go func() {
		defer close(qv.done)
		qv.v, qv.err = e.Query(ctx, strings.ToValidUTF8(cut(words, queryBytes), " "))
		if qv.err == nil {
			qv.v = unit(qv.v)
			if qv.v == nil {
				qv.err = errors.New("the query's vector is all zeros")
			}
		}
	}()
	return qv
}

// wait returns the query's unit vector; the embedder bounds the wait.
func (qv *queryVector) wait(ctx context.Context) ([]float32, error) {
	select {
	case <-qv.done:
		return qv.v, qv.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// unit returns v scaled to length 1, nil for a zero or non-finite vector.
func unit(v []float32) []float32 {
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil
	}
	n := 1 / math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, f := range v {
		out[i] = float32(float64(f) * n)
	}
	return out
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// ranked is a fact in the vector ranking.
type ranked struct {
	id     int32
	cosine float32
}

// vectorTop returns the facts f lets through closest to q, at most k of
// them, closest first; only those with a positive cosine. A fact's cosine
// is its closest vector's (its whole text, or a passage). Two passes: the
// signs of every vector against the query's (a popcount of 12 words at
// 768 dimensions) keep the closest by that measure — at least
// rescoreMin, and a quarter of the facts — and their int8 cosines rank
// them: 1–2 ms at 10,000 facts of 768 dimensions, against 9 ms for every
// int8 cosine. TestVectorTopRecall: the true top 50 when the query has
// near neighbours, as real queries do; 45–50 of them among 10,000 random
// vectors (all nearly orthogonal, the worst case), the misses near ties.
func vectorTop(vs *vectors, docs *docTable, f filter, q queryInt8, k int) []ranked {
	ids := make([]int32, 0, len(vs.byID))
	dists := make([]int32, 0, len(vs.byID))
	hist := make([]int, len(q.data)+1)
	for id, fv := range vs.byID {
		if fv == nil || id >= len(docs.docs) || !docs.docs[id].present || f.boost(&docs.docs[id]) == 0 {
			continue
		}
		h := min(fv.hamming(q.bits), len(q.data))
		ids, dists = append(ids, int32(id)), append(dists, int32(h))
		hist[h]++
	}
	keep := max(rescoreMin, len(ids)/4)
	limit, n := 0, 0 // rescore the facts within limit signs
	for limit < len(hist)-1 && n+hist[limit] < keep {
		n += hist[limit]
		limit++
	}
	// The second pass in two halves at once: on two idle cores, half the
	// wait.
	// The facts at limit itself are taken only until keep is reached:
	// vectors with many zeros (or many alike) tie there by thousands.
	room := keep - n
	half := len(ids) / 2
	var other []ranked
	done := make(chan struct{})
	go func() {
		defer close(done)
		other = rescore(vs, q, ids[half:], dists[half:], limit, room-room/2, k)
	}()
	top := rescore(vs, q, ids[:half], dists[:half], limit, room/2, k)
	<-done
	for _, r := range other {
		top = insertRanked(top, r, k)
	}
	return top
}

// rescore ranks by int8 cosine the facts of ids within limit signs, at
// most room of them at limit itself.
func rescore(vs *vectors, q queryInt8, ids, dists []int32, limit, room, k int) []ranked {
	var top []ranked // sorted, closest first
	for i, id := range ids {
		switch d := int(dists[i]); {
		case d > limit, d == limit && room <= 0:
			continue
		case d == limit:
			room--
		}
		top = insertRanked(top, ranked{id, vs.byID[id].best(q)}, k)
	}
	return top
}

// rescoreMin is the fewest facts vectorTop's second pass rescores.
const rescoreMin = 500

// insertRanked adds r to top (closest first, at most k) when it is among
// the k closest and its cosine is positive.
func insertRanked(top []ranked, r ranked, k int) []ranked {
	if r.cosine <= 0 || len(top) == k && r.cosine <= top[k-1].cosine {
		return top
	}
	at := len(top)
	for at > 0 && top[at-1].cosine < r.cosine {
		at--
	}
	if len(top) < k {
		top = append(top, ranked{})
	}
	copy(top[at+1:], top[at:len(top)-1])
	top[at] = r
	return top
}

// denseTop is the vector ranking of a search, with what fusing it takes,
// or nil (with the reason logged) when there is none to fuse.
func (x *Index) denseTop(ctx context.Context, conn *sql.Conn, v *view, qv *queryVector, e Embedder, fu *fusing) []ranked {
	log := logOf(e)
	q, err := qv.wait(ctx)
	if err != nil {
		if ctx.Err() == nil {
			log.Debug("search by words alone: the query has no vector", "err", err)
		}
		return nil
	}
	vs, err := x.readVectors(ctx, conn, v, qv.model, len(q))
	if err != nil {
		log.Warn("search by words alone: the stored vectors cannot be read", "err", err)
		return nil
	}
	if vs.count == 0 {
		var other int
		conn.QueryRowContext(ctx, `SELECT count(*) FROM vector WHERE model = ? AND dim != ?`, qv.model, len(q)).Scan(&other)
		if other > 0 {
			log.Warn(fmt.Sprintf("search by words alone: the query's vector has %d dimensions, the %d stored for model %s another; they are dropped, and embedded again",
				len(q), other, qv.model))
			x.stale = &staleVectors{model: qv.model, dim: len(q)}
		} else {
			log.Info("search by words alone: no fact has a vector yet (the daemon embeds them)", "model", qv.model)
		}
		return nil
	}
	fu.vs, fu.q = vs, quantizeQuery(q)
	return vectorTop(vs, v.docs, fu.f, fu.q, fuseDepth)
}

// staleVectors are the vectors of a model of another dimension than dim.
type staleVectors struct {
	model string
	dim   int
}

// mayHaveVectors reports whether a search with e should embed its query:
// whether any fact has a vector of e's model. Known from the vectors held
// when they are (the daemon, an MCP server), else asked of the index: a
// store that has none yet never waits for the endpoint.
func (x *Index) mayHaveVectors(ctx context.Context, e Embedder) bool {
	if e == nil {
		return false
	}
	model := e.Model()
	x.mu.Lock()
	st := x.vecs
	x.mu.Unlock()
	if st != nil && st.model == model && len(st.byHash) > 0 {
		return true
	}
	var any bool
	err := x.do(ctx, func() error {
		return x.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM vector WHERE model = ?)`, model).Scan(&any)
	})
	return err != nil || any // an index that cannot say: try, as before
}

// dropStale drops the vectors that a search found of another dimension
// than its query's (x.stale), for FillVectors to embed those facts again.
// It runs after the search's read transaction: a write inside it would
// be rolled back with it.
func (x *Index) dropStale(ctx context.Context) {
	st := x.stale
	x.stale = nil
	if st == nil {
		return
	}
	if _, err := x.db.ExecContext(ctx, `DELETE FROM vector WHERE model = ? AND dim != ?`, st.model, st.dim); err == nil {
		x.view = nil
	}
}

// factText is what is embedded of a fact: its name, title, description
// and body, cut to fillTextBytes.
func factText(name, title, description, body string) string {
	var parts []string
	for _, s := range []string{name, title, description, body} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.ToValidUTF8(cut(strings.Join(parts, "\n"), fillTextBytes), " ")
}
