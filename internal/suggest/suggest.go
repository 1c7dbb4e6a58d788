// Package suggest is "did you mean": the edit distance between two words
// and the candidate a mistyped word most likely meant, for the command
// line's flags and the configuration's keys alike.
package suggest

import (
	"slices"
	"sort"
	"strings"
)

// Distance is the Damerau–Levenshtein distance between a and b in its
// optimal-string-alignment form: insertions, deletions, substitutions and
// transpositions of two neighbours each cost one.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j]; three rows suffice.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// Word is the candidate word most likely meant: the nearest within an
// edit distance of two (and less than word's length, so that "x" does not
// suggest "n"), else the only candidate word is a prefix of. Ties go to
// the candidate first in sort order. "" when nothing is close.
func Word(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	best, bestD := "", 3
	sorted := slices.Clone(candidates)
	sort.Strings(sorted)
	for _, c := range sorted {
		d := Distance(strings.ToLower(word), strings.ToLower(c))
		if d < bestD && d < len([]rune(word)) {
			best, bestD = c, d
		}
	}
	if best != "" || len(word) < 2 {
		return best
	}
	var prefixed []string
	for _, c := range sorted {
		if strings.HasPrefix(c, word) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}
