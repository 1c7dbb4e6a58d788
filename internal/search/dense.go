package search

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
)

// The second signal, optional: with an embeddings endpoint configured
// (package embed), every fact's text has a vector, kept in the vector
// table keyed by the fact's content hash and the model, filled in the
// background by the daemon (FillVectors) and never by a search. A search
// embeds its query (within the embedder's short time limit, while the
// words are scored), ranks the facts with a vector by cosine, and fuses
// that ranking with the word ranking by reciprocal rank fusion. When
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

// Fusion: a fact's fused score is rrfK × Σ 1/(rrfK + rank) over the two
// rankings it is in (its ranks 1-based, each ranking cut at fuseDepth).
const (
	rrfK      = 60
	fuseDepth = 50
)

// Filling: facts embedded per call at most, and bytes of a fact's text
// sent (about 1,000 tokens).
const (
	fillBatch     = 32
	fillTextBytes = 4000
	queryBytes    = 2000 // bytes of a query embedded
)

// Fusion is how the two rankings of a fused search placed a fact; Score is
// rrfK × (1/(rrfK+Lexical) + 1/(rrfK+Vector)), a missing rank adding
// nothing.
type Fusion struct {
	Lexical int     `json:"lexical"` // rank by the words (1 is first); 0 when not among the first 50
	Vector  int     `json:"vector"`  // rank by the embeddings' cosine; 0 when not among the first 50
	Cosine  float64 `json:"cosine"`  // between the query's vector and the fact's
}

// SetEmbedder sets the embedder that FillVectors uses, and that searches
// use when their Query has none. nil turns the second signal off.
func (x *Index) SetEmbedder(e Embedder) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.embedder = e
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

// vectors are the stored vectors of one model and dimension, by fact row
// id, as a search reads them: unit vectors, one after another in data.
type vectors struct {
	model string
	dim   int
	ids   []int32
	data  []float32
}

// readVectors returns the vectors of model and dim for the facts indexed,
// from v when read already.
func readVectors(ctx context.Context, conn *sql.Conn, v *view, model string, dim int) (*vectors, error) {
	if vs := v.vectors; vs != nil && vs.model == model && vs.dim == dim {
		return vs, nil
	}
	// Two scans in table order, joined here: a join in SQL looks every
	// fact's vector up in the index, ten times slower.
	ids := make(map[string][]int32)
	rows, err := conn.QueryContext(ctx, `SELECT id, hash FROM fact`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int32
		var hash string
		if err := rows.Scan(&id, &hash); err != nil {
			rows.Close()
			return nil, err
		}
		ids[hash] = append(ids[hash], id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = conn.QueryContext(ctx, `SELECT hash, data FROM vector WHERE model = ? AND dim = ?`, model, dim)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	n := len(v.docs.docs) // about the facts indexed: the vectors' room
	vs := &vectors{model: model, dim: dim, ids: make([]int32, 0, n), data: make([]float32, 0, n*dim)}
	var hash string
	var b []byte
	for rows.Next() {
		if err := rows.Scan(&hash, &b); err != nil {
			return nil, err
		}
		if len(b) != 4*dim {
			continue
		}
		for _, id := range ids[hash] {
			vs.ids = append(vs.ids, id)
			for i := 0; i < len(b); i += 4 {
				vs.data = append(vs.data, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	v.vectors = vs
	return vs, nil
}

// ranked is a fact in the vector ranking.
type ranked struct {
	id     int32
	cosine float32
}

// vectorTop returns the facts f lets through closest to the unit vector
// q, at most k of them, closest first; only those with a positive cosine.
func vectorTop(vs *vectors, docs *docTable, f filter, q []float32, k int) []ranked {
	var top []ranked // sorted, closest first
	dim := vs.dim
	for i, id := range vs.ids {
		if int(id) >= len(docs.docs) || !docs.docs[id].present || f.boost(&docs.docs[id]) == 0 {
			continue
		}
		row := vs.data[i*dim : (i+1)*dim : (i+1)*dim]
		var dot float32
		for j, x := range row {
			dot += x * q[j]
		}
		if dot <= 0 || len(top) == k && dot <= top[k-1].cosine {
			continue
		}
		at := len(top)
		for at > 0 && top[at-1].cosine < dot {
			at--
		}
		if len(top) < k {
			top = append(top, ranked{})
		}
		copy(top[at+1:], top[at:len(top)-1])
		top[at] = ranked{id, dot}
	}
	return top
}

// fuse merges the word ranking lex (best first) with the vector ranking
// vec by reciprocal rank fusion and returns the best limit, the fused
// score in score. A fact the words did not find joins as a candidate of
// its own; ties keep the word ranking's order, then the vector's.
func fuse(s *scorer, f filter, lex []candidate, vec []ranked, limit int) []candidate {
	type entry struct {
		c        candidate
		lex, vec int
	}
	byID := make(map[int32]*entry, len(lex)+len(vec))
	order := make([]*entry, 0, len(lex)+len(vec))
	for i, c := range lex {
		e := &entry{c: c, lex: i + 1}
		byID[c.id] = e
		order = append(order, e)
	}
	for i, r := range vec {
		e := byID[r.id]
		if e == nil {
			d := &s.docs.docs[r.id]
			e = &entry{c: candidate{id: r.id, text: s.total[r.id], boost: f.boost(d)}}
			byID[r.id] = e
			order = append(order, e)
		}
		e.vec = i + 1
		e.c.fusion = &Fusion{Vector: i + 1, Cosine: round3(float64(r.cosine))}
	}
	rrf := func(rank int) float64 {
		if rank == 0 {
			return 0
		}
		return rrfK / float64(rrfK+rank)
	}
	out := make([]candidate, len(order))
	rank := make(map[int32][2]int, len(order))
	for i, e := range order {
		e.c.score = rrf(e.lex) + rrf(e.vec)
		if e.c.fusion == nil {
			e.c.fusion = &Fusion{}
		}
		e.c.fusion.Lexical = e.lex
		out[i] = e.c
		rank[e.c.id] = [2]int{e.lex, e.vec}
	}
	missing := func(r int) int {
		if r == 0 {
			return math.MaxInt
		}
		return r
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		ra, rb := rank[a.id], rank[b.id]
		if d := missing(ra[0]) - missing(rb[0]); ra[0] != rb[0] {
			return sign(d)
		}
		return sign(missing(ra[1]) - missing(rb[1]))
	})
	return out[:min(limit, len(out))]
}

func sign(d int) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}

// denseTop is the vector ranking of a search, or nil (with the reason
// logged) when there is none to fuse.
func (x *Index) denseTop(ctx context.Context, conn *sql.Conn, v *view, qv *queryVector, e Embedder, f filter) []ranked {
	log := logOf(e)
	q, err := qv.wait(ctx)
	if err != nil {
		if ctx.Err() == nil {
			log.Debug("search by words alone: the query has no vector", "err", err)
		}
		return nil
	}
	vs, err := readVectors(ctx, conn, v, qv.model, len(q))
	if err != nil {
		log.Warn("search by words alone: the stored vectors cannot be read", "err", err)
		return nil
	}
	if len(vs.ids) == 0 {
		var other int
		conn.QueryRowContext(ctx, `SELECT count(*) FROM vector WHERE model = ? AND dim != ?`, qv.model, len(q)).Scan(&other)
		if other > 0 {
			log.Warn(fmt.Sprintf("search by words alone: the query's vector has %d dimensions, the %d stored for model %s another; they are dropped, and embedded again",
				len(q), other, qv.model))
			x.stale = &vectors{model: qv.model, dim: len(q)}
		} else {
			log.Info("search by words alone: no fact has a vector yet (the daemon embeds them)", "model", qv.model)
		}
		return nil
	}
	return vectorTop(vs, v.docs, f, q, fuseDepth)
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

// FillVectors embeds up to fillBatch facts that have no vector of the
// embedder's model yet, with one call, and stores their vectors; more
// reports that others are still waiting. It first drops the vectors of
// other models and of facts no longer indexed. Without an embedder it does
// nothing. The endpoint is called with no lock held: searches and syncs go
// on meanwhile. A batch answered with vectors of another dimension than
// those stored replaces them all, one batch at a time.
func (x *Index) FillVectors(ctx context.Context) (more bool, err error) {
	e := x.getEmbedder()
	if e == nil {
		return false, nil
	}
	model := e.Model()
	var hashes, texts []string
	err = x.do(ctx, func() error {
		hashes, texts = hashes[:0], texts[:0]
		if _, err := x.db.ExecContext(ctx, `DELETE FROM vector WHERE model != ?1 OR hash NOT IN (SELECT hash FROM fact)`, model); err != nil {
			return err
		}
		rows, err := x.db.QueryContext(ctx, `SELECT hash, name, title, description, body FROM fact f
			WHERE hash != '' AND NOT EXISTS (SELECT 1 FROM vector v WHERE v.hash = f.hash AND v.model = ?1)
			GROUP BY hash ORDER BY min(id) LIMIT ?2`, model, fillBatch+1)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var hash, name, title, description, body string
			if err := rows.Scan(&hash, &name, &title, &description, &body); err != nil {
				return err
			}
			hashes = append(hashes, hash)
			texts = append(texts, factText(name, title, description, body))
		}
		return rows.Err()
	})
	if err != nil || len(hashes) == 0 {
		return false, err
	}
	if len(hashes) > fillBatch {
		more, hashes, texts = true, hashes[:fillBatch], texts[:fillBatch]
	}
	vs, err := e.Batch(ctx, texts)
	if err != nil {
		return false, err
	}
	if len(vs) != len(hashes) {
		return false, fmt.Errorf("embeddings: %d vectors for %d facts", len(vs), len(hashes))
	}
	dim := len(vs[0])
	err = x.do(ctx, func() error {
		tx, err := x.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `DELETE FROM vector WHERE model = ? AND dim != ?`, model, dim); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vector (hash, model, dim, data) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, v := range vs {
			u := unit(v)
			if len(v) != dim || u == nil {
				continue // a garbage vector: the fact waits for the next call
			}
			if _, err := stmt.ExecContext(ctx, hashes[i], model, dim, encodeVector(u)); err != nil {
				return err
			}
		}
		err = tx.Commit()
		x.view = nil // this connection's own commit leaves data_version as it was
		return err
	})
	return more, err
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
