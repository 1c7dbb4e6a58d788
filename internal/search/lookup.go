package search

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
)

// This file reads what a query needs from the index: the view of the doc
// table, and the postings of each word's forms (stem, synonyms, typos,
// the last word as a prefix).

// view is what searches read from the index while no other connection
// commits (PRAGMA data_version stays the same) and this one does not
// either (apply drops it): the doc table, and the postings read so far.
type view struct {
	version  int64
	docs     *docTable
	stems    map[string][]*formList // by stem
	postings int                    // postings held in stems
	vectors  *vectors               // read by the first search that fused
	vocab    *vocabulary            // read by the first search with a typo
}

// maxViewPostings bounds the postings a view keeps: past it, it forgets
// them all and reads again what the next searches need.
const maxViewPostings = 4 << 20

// formList is a term's postings, decoded.
type formList struct {
	form string
	ids  []int32
	tfs  []tfs
}

// find returns the true top of the facts q's words match, best first: every
// fact with any of the words is scored.
func (x *Index) find(ctx context.Context, q Query, p parsed, qv *queryVector, e Embedder) ([]Hit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	want := limit // hits asked for
	if qv != nil {
		limit = max(limit, fuseDepth) // the word ranking's depth, to fuse
	}
	conn, err := x.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// One read transaction: the postings, the doc table and the facts'
	// rows are of one version of the index.
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	v, err := x.readView(ctx, conn)
	if err != nil {
		return nil, err
	}
	s := newScorer(v.docs)
	budget := relatedBudget
	for _, w := range p.words {
		alts, err := x.wordAlts(ctx, conn, v, w, &budget)
		if err != nil {
			return nil, err
		}
		s.scoreWord(alts)
	}
	f := newFilter(q)
	top, err := x.passageTop(ctx, conn, s, f, limit)
	if err != nil {
		return nil, err
	}
	if more, err := x.feedback(ctx, conn, v, s, p, top); err != nil {
		return nil, err
	} else if more {
		if top, err = x.passageTop(ctx, conn, s, f, limit); err != nil {
			return nil, err
		}
	}
	var ps *scorer // the prefix search's, for the facts only it found
	// The prefix search fills in when the words find fewer facts than
	// asked for (want), not than the fusion's depth: it reads every term
	// the last word begins.
	if len(top) < want && len(p.last) >= 2 {
		if top, ps, err = x.prefixTop(ctx, conn, v, p.last, f, top, limit); err != nil {
			return nil, err
		}
	}
	if qv != nil {
		fu := fusing{s: s, f: f, mode: cmp.Or(q.Fusion, x.fusion)}
		if vec := x.denseTop(ctx, conn, v, qv, e, &fu); len(vec) > 0 {
			top = fu.fuse(top, vec, want)
		}
	}
	return x.hits(ctx, conn, s, ps, top[:min(want, len(top))], q.Explain)
}

// wordAlts are the forms a query word w is looked for in: its stem, its
// synonyms at their weight and, when none of them is in the index, its
// related words (relatedAlts, which spend budget) or, for a word the
// thesaurus does not know, the words a typo away (typoAlts).
func (x *Index) wordAlts(ctx context.Context, conn *sql.Conn, v *view, w string, budget *int) ([]*alt, error) {
	st := stem(w)
	lists, err := x.stemLists(ctx, conn, v, st)
	if err != nil {
		return nil, err
	}
	alts := []*alt{{word: w, stem: st, exact: w, weight: 1, lists: lists}}
	for _, syn := range synonyms[st] {
		lists, err := x.stemLists(ctx, conn, v, syn)
		if err != nil {
			return nil, err
		}
		alts = append(alts, &alt{word: w, stem: syn, weight: synonymWeight, kind: "synonym", lists: lists})
	}
	if slices.ContainsFunc(alts, func(a *alt) bool { return len(a.lists) > 0 }) {
		return alts, nil
	}
	related, known, err := x.relatedAlts(ctx, conn, v, w, budget)
	if err != nil {
		return nil, err
	}
	alts = append(alts, related...)
	if !known {
		typos, err := x.typoAlts(ctx, conn, v, w)
		if err != nil {
			return nil, err
		}
		alts = append(alts, typos...)
	}
	return alts, nil
}

// prefixTop adds to top, up to limit, the facts with a word that starts
// with last (the word being typed), scored by a scorer of their own, which
// it returns (nil when no word starts so).
func (x *Index) prefixTop(ctx context.Context, conn *sql.Conn, v *view, last string, f filter, top []candidate, limit int) ([]candidate, *scorer, error) {
	lists, err := prefixLists(ctx, conn, last)
	if err != nil || len(lists) == 0 {
		return top, nil, err
	}
	seen := make(map[int32]bool, len(top))
	for _, c := range top {
		seen[c.id] = true
	}
	ps := newScorer(v.docs)
	ps.scoreWord([]*alt{{word: last, weight: prefixWeight, kind: "prefix", lists: lists}})
	more := ps.top(f, limit-len(top), seen)
	for i := range more {
		more[i].prefix = true
	}
	return append(top, more...), ps, nil
}

// readView returns the view of the index for a search on conn, reading
// the doc table again when another connection committed.
func (x *Index) readView(ctx context.Context, conn *sql.Conn) (*view, error) {
	var version int64
	if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
		return nil, err
	}
	if v := x.view; v != nil && v.version == version && v.postings < maxViewPostings {
		return v, nil
	}
	x.view = nil
	var b []byte
	if err := conn.QueryRowContext(ctx, `SELECT data FROM blob WHERE key = 'docs'`).Scan(&b); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	docs, err := decodeDocTable(b)
	if err != nil {
		return nil, err
	}
	x.view = &view{version: version, docs: docs, stems: make(map[string][]*formList)}
	return x.view, nil
}

// stemLists returns the postings of every term with stem st.
func (x *Index) stemLists(ctx context.Context, conn *sql.Conn, v *view, st string) ([]*formList, error) {
	if lists, ok := v.stems[st]; ok {
		return lists, nil
	}
	lists, err := readLists(ctx, conn, `SELECT form, postings FROM term WHERE stem = ?`, st)
	if err != nil {
		return nil, err
	}
	v.stems[st] = lists
	for _, l := range lists {
		v.postings += len(l.ids)
	}
	return lists, nil
}

// prefixLists returns the postings of the terms that begin with prefix
// (maxPrefixes of them at most, the shortest first), prefix itself left
// out: a whole word has been searched already.
func prefixLists(ctx context.Context, conn *sql.Conn, prefix string) ([]*formList, error) {
	return readLists(ctx, conn, `SELECT form, postings FROM term WHERE form > ?1 AND form < ?1 || char(1114111)
		ORDER BY length(form), form LIMIT ?2`, prefix, maxPrefixes)
}

func readLists(ctx context.Context, conn *sql.Conn, query string, args ...any) ([]*formList, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*formList
	for rows.Next() {
		var form string
		var b []byte
		if err := rows.Scan(&form, &b); err != nil {
			return nil, err
		}
		l, err := decodeList(form, b)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// decodeList decodes the postings b of the term form.
func decodeList(form string, b []byte) (*formList, error) {
	l := &formList{form: form}
	err := decodePostings(b, func(id int64, tf *tfs) {
		l.ids = append(l.ids, int32(id))
		l.tfs = append(l.tfs, *tf)
	})
	return l, err
}
