package search

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Passages: a fact whose body is longer than passageBodyBytes gets, beside
// its whole text's vector, one for each of its first maxPassages passages
// — its paragraphs, joined until each has passageMinBytes — each headed by
// the fact's name and title; a search takes the closest of a fact's
// vectors (vectors.go). A long fact's whole-text vector averages all it
// says, and one of its paragraphs may answer a question as a short fact
// does. At most 1 + maxPassages vectors a fact: 10,000 long facts of 768
// dimensions hold at most 38 MB in memory, short ones 7.7 MB.
const (
	passageBodyBytes = 1200
	passageMinBytes  = 300
	maxPassages      = 4
)

// pending is a fact without a vector, with the texts to embed for it.
type pending struct {
	hash  string
	texts []string
}

// FillVectors embeds up to fillBatch facts that have no vector of the
// embedder's model yet (at most fillTexts texts), with one call, and
// stores their vectors; more reports that others are still waiting. It
// first drops the vectors of other models and of facts no longer indexed.
// Without an embedder it does nothing. The endpoint is called with no
// lock held: searches and syncs go on meanwhile. A batch answered with
// vectors of another dimension than those stored replaces them all, one
// batch at a time.
func (x *Index) FillVectors(ctx context.Context) (more bool, err error) {
	e := x.getEmbedder()
	if e == nil {
		return false, nil
	}
	model := e.Model()
	var facts []pending
	err = x.do(ctx, func() error {
		facts, more, err = x.unembedded(ctx, model)
		return err
	})
	if err != nil || len(facts) == 0 {
		return false, err
	}
	var texts []string
	for _, p := range facts {
		texts = append(texts, p.texts...)
	}
	vs, err := e.Batch(ctx, texts)
	if err != nil {
		return false, err
	}
	if len(vs) != len(texts) {
		return false, fmt.Errorf("embeddings: %d vectors for %d texts", len(vs), len(texts))
	}
	err = x.do(ctx, func() error { return x.storeVectors(ctx, model, facts, vs) })
	return more, err
}

// unembedded drops the vectors of other models and of facts gone, and
// returns the next facts to embed; more when others wait.
func (x *Index) unembedded(ctx context.Context, model string) (facts []pending, more bool, err error) {
	if _, err := x.db.ExecContext(ctx, `DELETE FROM vector WHERE model != ?1 OR hash NOT IN (SELECT hash FROM fact)`, model); err != nil {
		return nil, false, err
	}
	// A long fact embedded before passages were has its whole text's
	// vector alone, where factTexts now gives at least one passage too:
	// embedded again.
	if _, err := x.db.ExecContext(ctx, `DELETE FROM vector WHERE length(data) = 4*dim
		AND hash IN (SELECT hash FROM fact WHERE length(CAST(body AS BLOB)) > ?1)`, passageBodyBytes); err != nil {
		return nil, false, err
	}
	rows, err := x.db.QueryContext(ctx, `SELECT hash, name, title, description, body FROM fact f
		WHERE hash != '' AND NOT EXISTS (SELECT 1 FROM vector v WHERE v.hash = f.hash AND v.model = ?1)
		GROUP BY hash ORDER BY min(id) LIMIT ?2`, model, fillBatch+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var hash, name, title, description, body string
		if err := rows.Scan(&hash, &name, &title, &description, &body); err != nil {
			return nil, false, err
		}
		texts := factTexts(name, title, description, body)
		if len(facts) == fillBatch || len(facts) > 0 && n+len(texts) > fillTexts {
			return facts, true, nil
		}
		facts, n = append(facts, pending{hash, texts}), n+len(texts)
	}
	return facts, false, rows.Err()
}

// storeVectors stores each fact's vectors (vs, in the order of the facts'
// texts) as one row, numbered from meta's vector_seq (vectors.go).
func (x *Index) storeVectors(ctx context.Context, model string, facts []pending, vs [][]float32) error {
	dim := len(vs[0])
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM vector WHERE model = ? AND dim != ?`, model, dim); err != nil {
		return err
	}
	seq, err := vectorSeq(ctx, tx)
	if err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vector (id, hash, model, dim, data) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	at := 0
	for _, p := range facts {
		blob := factBlob(vs[at:at+len(p.texts)], dim)
		at += len(p.texts)
		if blob == nil {
			continue // a garbage vector: the fact waits for the next call
		}
		seq++
		if _, err := stmt.ExecContext(ctx, seq, p.hash, model, dim, blob); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES ('vector_seq', ?)`, strconv.FormatInt(seq, 10)); err != nil {
		return err
	}
	err = tx.Commit()
	x.view = nil // this connection's own commit leaves data_version as it was
	return err
}

// factBlob is a fact's unit vectors one after another, nil when one is
// not a vector of dim values.
func factBlob(vs [][]float32, dim int) []byte {
	b := make([]byte, 0, 4*dim*len(vs))
	for _, v := range vs {
		u := unit(v)
		if len(v) != dim || u == nil {
			return nil
		}
		b = append(b, encodeVector(u)...)
	}
	return b
}

// factTexts are what is embedded of a fact: its whole text (factText) and,
// for a long body, its passages.
func factTexts(name, title, description, body string) []string {
	texts := []string{factText(name, title, description, body)}
	if len(body) <= passageBodyBytes {
		return texts
	}
	head := strings.TrimSpace(name + "\n" + title)
	var cur strings.Builder
	for _, para := range strings.Split(body, "\n\n") {
		if para = strings.TrimSpace(para); para == "" {
			continue
		}
		if cur.Len() > 0 {
			cur.WriteString("\n\n")
		}
		cur.WriteString(para)
		if cur.Len() >= passageMinBytes {
			texts = append(texts, factText(head, "", "", cur.String()))
			cur.Reset()
			if len(texts) > maxPassages {
				return texts
			}
		}
	}
	if cur.Len() > 0 {
		texts = append(texts, factText(head, "", "", cur.String()))
	}
	return texts
}
