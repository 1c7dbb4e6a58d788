package search

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// This file turns the top facts into hits: their fields, a snippet around
// the query's words, and the explanation.

// hits reads the hits of top, each explained by the scorer that found it:
// s, or ps for the facts only the prefix search found.
func (x *Index) hits(ctx context.Context, conn *sql.Conn, s, ps *scorer, top []candidate, explain bool) ([]Hit, error) {
	hits := make([]Hit, 0, len(top))
	for _, c := range top {
		by := s
		if c.prefix {
			by = ps
		}
		h, err := x.hit(ctx, conn, by, c, explain)
		if err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// hit reads the row of candidate c and makes its Hit.
func (x *Index) hit(ctx context.Context, conn *sql.Conn, s *scorer, c candidate, explain bool) (Hit, error) {
	d := &s.docs.docs[c.id]
	h := Hit{Score: round3(c.score), Type: d.typeName, Project: d.projectName}
	var body string
	err := conn.QueryRowContext(ctx, `SELECT file, name, title, description, body, superseded_by FROM fact WHERE id = ?`, c.id).
		Scan(&h.File, &h.Name, &h.Title, &h.Description, &body, &h.SupersededBy)
	if err != nil {
		return h, fmt.Errorf("read fact %d: %w", c.id, err)
	}
	stems := make(map[string]bool)
	for _, alts := range s.words {
		for _, a := range alts {
			for _, l := range a.lists {
				if _, ok := slices.BinarySearch(l.ids, c.id); ok {
					stems[stem(l.form)] = true
				}
			}
		}
	}
	h.Snippet = snippet(body, stems)
	if explain {
		h.Explain = &Explanation{Terms: s.explain(c.id), Text: round3(c.text), Boost: c.boost,
			Pinned: d.pinned, Updated: d.updatedDate(), Prefix: c.prefix, Passage: round3(c.passage), Fusion: c.fusion}
	}
	return h, nil
}

// snippet returns the words of body around its best match — where most of
// the matched stems are close together — or its start when none is there,
// on one line of at most snippetBytes.
func snippet(body string, stems map[string]bool) string {
	if whole := oneLine(body, snippetBytes); !strings.HasSuffix(whole, "…") || len(stems) == 0 {
		return whole
	}
	type match struct {
		at   int
		stem string
	}
	var found []match
	terms(body, func(t term) bool {
		if st := stem(t.text); stems[st] {
			found = append(found, match{t.start, st})
		}
		return len(found) < 1000
	})
	if len(found) == 0 {
		return oneLine(body, snippetBytes)
	}
	best, bestN := 0, 0
	for i := range found {
		seen := make(map[string]bool)
		for j := i; j < len(found) && found[j].at < found[i].at+snippetBytes/2; j++ {
			seen[found[j].stem] = true
		}
		if len(seen) > bestN {
			best, bestN = i, len(seen)
		}
	}
	// Start a few words before the match, at the start of a word.
	start := found[best].at
	if back := max(0, start-40); back > 0 {
		if i := strings.IndexFunc(body[back:start], unicode.IsSpace); i >= 0 {
			start = back + i + 1
		}
	} else {
		start = 0
	}
	if start == 0 {
		return oneLine(body, snippetBytes)
	}
	return "…" + oneLine(body[start:], snippetBytes-len("…"))
}

// oneLine folds every run of white space and control characters in s into
// one space and cuts the result to at most n bytes, ending it with "…" when
// it was cut.
func oneLine(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		if b.Len() > 2*n+8 {
			break
		}
	}
	out := b.String()
	if len(out) <= n {
		return out
	}
	return strings.TrimRight(cut(out, n-len("…")), " ") + "…"
}
