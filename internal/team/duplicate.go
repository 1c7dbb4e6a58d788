package team

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
)

// sameRule is the least word overlap (Dice's coefficient over the stems
// of description and body) at which two facts say the same thing.
const sameRule = 0.5

// Duplicate is the file of the team fact that a fact with this name,
// description and body would repeat (see SameIn), "" for none. A folder
// that does not exist yet has no duplicates.
func (f Folder) Duplicate(ctx context.Context, stateDir, name, description, body string) (string, error) {
	if !f.Exists() {
		return "", nil
	}
	snap, err := f.Scan()
	if err != nil {
		return "", err
	}
	return SameIn(ctx, f.StateDir(stateDir), f.Dir, snap, nil, name, description, body)
}

// SameIn is the file of the fact of dir (snap, its facts; keep, when not
// nil, the ones that count) that a fact with this name, description and
// body says again: the same name, the same text once case, spacing and
// punctuation are set aside (index.Canonical), or the same content in
// other words — among the facts search (its index kept in searchState)
// ranks first for its words, one that shares at least half of its word
// stems. "" for none.
func SameIn(ctx context.Context, searchState, dir string, snap index.Snapshot, keep func(*index.Memory) bool, name, description, body string) (string, error) {
	cd, cb := index.Canonical(description), index.Canonical(body)
	byFile := map[string]*index.Memory{}
	for _, m := range snap.Memories {
		if keep != nil && !keep(m) {
			continue
		}
		if m.Name == name || index.Canonical(m.Description) == cd || index.Canonical(m.Body) == cb {
			return m.File, nil
		}
		byFile[m.File] = m
	}
	hits, err := search.Find(ctx, searchState, dir, search.Query{Words: description + " " + body, All: true, Limit: 5})
	if errors.Is(err, search.ErrNoWords) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	mine := stems(description + " " + body)
	for _, h := range hits {
		if m := byFile[h.File]; m != nil && overlap(mine, stems(m.Description+" "+m.Body)) >= sameRule {
			return m.File, nil
		}
	}
	return "", nil
}

// stopWords are the words too common to say what a rule is about.
var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "that": true, "this": true,
	"are": true, "was": true, "not": true, "but": true, "you": true, "use": true, "using": true, "from": true,
	"into": true, "its": true, "our": true, "why": true, "than": true, "rather": true}

// stems is the set of word stems of text, short and common words left out.
func stems(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) < 3 || stopWords[w] {
			continue
		}
		out[search.Stem(w)] = true
	}
	return out
}

// overlap is Dice's coefficient of a and b.
func overlap(a, b map[string]bool) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}
