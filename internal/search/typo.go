package search

import (
	"cmp"
	"context"
	"database/sql"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Typo tolerance. A query word of typoMinRunes letters or more that no
// fact has in any form (nor a synonym of it) is looked for as the words of
// the vocabulary nearest to it: one edit away for a word of up to 7
// letters, two for a longer one (an edit is a letter inserted, deleted,
// replaced, or two neighbours swapped). Only the nearest are kept, at most
// maxTypoForms of them, and each counts typoWeight of the word itself, so
// that a fact with the words as typed ranks above one found by a
// correction. Words with digits are never corrected: "v1.24" is not a typo
// of "v1.25".
const (
	typoMinRunes = 5
	maxTypoForms = 4
)

// typoWeight is what a corrected word counts, as a share of the word's
// weight; a var so the recall benchmark can compare settings.
var typoWeight = 0.5

// typoDistance is the most edits a word of n runes may be from its
// correction, 0 for a word too short to correct.
func typoDistance(n int) int {
	switch {
	case n < typoMinRunes:
		return 0
	case n <= 7:
		return 1
	}
	return 2
}

// vocabulary is the forms of the index that could be corrections, by
// their length in runes; a view reads it once, on its first typo.
type vocabulary struct {
	byLen map[int][][]rune
	masks map[int][]uint32 // the letters of each form of byLen (letterMask)
}

// letterMask is the set of w's letters, a bit each (a letter outside a–z
// by its code): a letter one word has and the other lacks takes an edit,
// so two words whose sets differ by more than k letters either way are
// more than k edits apart, found without the edit distance.
func letterMask(w []rune) uint32 {
	var m uint32
	for _, r := range w {
		if r >= 'a' && r <= 'z' {
			m |= 1 << (r - 'a')
		} else {
			m |= 1 << (26 + r%6)
		}
	}
	return m
}

// correctable reports whether form is letters only.
func correctable(form string) bool {
	for _, r := range form {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return form != ""
}

// readVocabulary reads every form of the term table, from its primary
// key's index (the postings are not read), as one string: a row a form
// costs the driver more than the reading.
func readVocabulary(ctx context.Context, conn *sql.Conn) (*vocabulary, error) {
	var all sql.NullString
	if err := conn.QueryRowContext(ctx, `SELECT group_concat(form, ' ') FROM term`).Scan(&all); err != nil {
		return nil, err
	}
	// The forms' runes in one slab, the forms slices of it.
	slab := make([]rune, 0, len(all.String))
	var spans [][2]int
	for form := range strings.SplitSeq(all.String, " ") {
		if correctable(form) {
			start := len(slab)
			for _, r := range form {
				slab = append(slab, r)
			}
			spans = append(spans, [2]int{start, len(slab)})
		}
	}
	v := &vocabulary{byLen: make(map[int][][]rune), masks: make(map[int][]uint32)}
	for _, sp := range spans {
		n, form := sp[1]-sp[0], slab[sp[0]:sp[1]:sp[1]]
		v.byLen[n] = append(v.byLen[n], form)
		v.masks[n] = append(v.masks[n], letterMask(form))
	}
	return v, nil
}

// corrections returns the forms of v nearest to w, within w's distance,
// at most maxTypoForms (the first in order of the form), with their
// distance; none when w is too short or has a digit.
func (v *vocabulary) corrections(w string) ([]string, int) {
	n := utf8.RuneCountInString(w)
	limit := typoDistance(n)
	if limit == 0 || !correctable(w) {
		return nil, 0
	}
	word := []rune(w)
	best := limit + 1
	var found []string
	row := make([]int, 3*(n+limit+2))
	mask := letterMask(word)
	for l := n - limit; l <= n+limit; l++ {
		masks := v.masks[l]
		for i, form := range v.byLen[l] {
			k := min(limit, best)
			if bits.OnesCount32(mask&^masks[i]) > k || bits.OnesCount32(masks[i]&^mask) > k {
				continue
			}
			d := editDistance(word, form, k, row)
			switch {
			case d > limit:
			case d < best:
				best, found = d, append(found[:0], string(form))
			case d == best:
				found = append(found, string(form))
			}
		}
	}
	if len(found) == 0 {
		return nil, 0
	}
	slices.SortFunc(found, cmp.Compare)
	return found[:min(maxTypoForms, len(found))], best
}

// editDistance returns the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and swaps of neighbours), or
// limit+1 as soon as it must be more than limit. buf holds three rows of
// len(b)+1 ints at least.
func editDistance(a, b []rune, limit int, buf []int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	w := len(b) + 1
	prev2, prev, cur := buf[:w], buf[w:2*w], buf[2*w:3*w]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				c = min(c, prev2[j-2]+1)
			}
			cur[j] = c
			rowMin = min(rowMin, c)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}

// typoAlts returns the alternatives of word w, which no fact has: the
// corrections' stems, each weighing typoWeight (nil when there is none).
func (x *Index) typoAlts(ctx context.Context, conn *sql.Conn, v *view, w string) ([]*alt, error) {
	if typoWeight <= 0 || typoDistance(utf8.RuneCountInString(w)) == 0 || !correctable(w) {
		return nil, nil
	}
	if v.vocab == nil {
		voc, err := readVocabulary(ctx, conn)
		if err != nil {
			return nil, err
		}
		v.vocab = voc
	}
	forms, _ := v.vocab.corrections(w)
	var alts []*alt
	seen := make(map[string]bool)
	for _, form := range forms {
		st := stem(form)
		if seen[st] {
			continue
		}
		seen[st] = true
		lists, err := x.stemLists(ctx, conn, v, st)
		if err != nil {
			return nil, err
		}
		alts = append(alts, &alt{word: w, stem: st, exact: form, weight: typoWeight, kind: "typo", lists: lists})
	}
	return alts, nil
}
