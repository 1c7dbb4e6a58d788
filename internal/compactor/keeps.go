package compactor

import (
	"strings"
	"unicode"

	"github.com/memoryd/memoryd/internal/search"
)

// A merge must keep all its files said: a fact leaves the store only by a
// person's forget or by being merged into one that keeps it. keeps checks
// it mechanically, so a model's merge that drops a fact is refused and every
// file kept:
//
//   - every exact token of each source — a number, a URL, a path, an email,
//     an identifier, a version: anything with a digit or with . / @ _ : # -
//     inside — is in the merged text (case-insensitive);
//   - of each source's other words (three letters or more, not a few
//     function words), compared by stem, at most one in five is missing
//     (keptShare): a merge rephrases, it does not cut.
//
// The merged text is the merged fact's description and body; a source's
// text is its body.
const keptShare = 0.8

// lost returns the words of src that merged does not keep (see above),
// exact tokens first; nil when it keeps enough.
func lost(src, merged string) []string {
	have := map[string]bool{}
	for _, t := range tokens(merged) {
		have[t.exact] = true
		have["~"+t.stem] = true
	}
	var exact, words []string
	total := 0
	seen := map[string]bool{}
	for _, t := range tokens(src) {
		if seen[t.exact] {
			continue
		}
		seen[t.exact] = true
		switch {
		case t.salient:
			if !have[t.exact] {
				exact = append(exact, t.exact)
			}
		case len([]rune(t.exact)) >= 3 && !functionWord[t.exact]:
			total++
			if !have["~"+t.stem] && !have[t.exact] {
				words = append(words, t.exact)
			}
		}
	}
	if len(exact) == 0 && float64(total-len(words)) >= keptShare*float64(total) {
		return nil
	}
	return append(exact, words...)
}

type token struct {
	exact, stem string
	salient     bool // holds a digit or inner punctuation: kept verbatim
}

// tokens splits text at spaces and at punctuation that is not inside a
// token (a trailing period or comma, brackets, quotes), lower-cased.
func tokens(text string) []token {
	var out []token
	for _, f := range strings.Fields(strings.ToLower(text)) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if f == "" {
			continue
		}
		if strings.ContainsFunc(f, unicode.IsDigit) || strings.ContainsAny(f, "./@_:#-") {
			out = append(out, token{exact: f, salient: true})
			continue
		}
		// Words joined by an apostrophe or other marks count apart.
		for _, w := range strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }) {
			out = append(out, token{exact: w, stem: search.Stem(w)})
		}
	}
	return out
}

// functionWord are words a rephrasing drops without losing anything.
var functionWord = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and but for yet are was were has had have its this that these those with from into onto
		than then when what which who whom whose will would can could should shall may might must does did doing been being very also just
		there their they them our ours your yours you she her his him each some such own same too about over under`) {
		functionWord[w] = true
	}
}
