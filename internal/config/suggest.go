package config

import (
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/suggest"
)

// unknownKey is the message for a key that is not in the table: a
// suggestion when a known key is close (a typo, a key in the wrong section),
// else the keys its section does know.
func unknownKey(key string) string {
	if s := suggestions(key); len(s) > 0 {
		return "unknown key (did you mean " + orList(s) + "?)"
	}
	section, _, nested := strings.Cut(key, ".")
	if !nested {
		section = ""
	}
	var known []string
	for _, k := range knownKeys() {
		if s, leaf, ok := strings.Cut(k, "."); ok && s == section {
			known = append(known, leaf)
		} else if !ok && section == "" {
			known = append(known, k)
		}
	}
	where := "at the top level"
	if section != "" {
		where = "in " + section
	}
	return "unknown key (known " + where + ": " + strings.Join(known, ", ") + ")"
}

// knownKeys is every key path and section name, in table order.
func knownKeys() []string {
	var out []string
	for _, f := range fields {
		if sec, _, ok := strings.Cut(f.key, "."); ok && !slices.Contains(out, sec) {
			out = append(out, sec)
		}
		out = append(out, f.key)
	}
	return out
}

// suggestions are the known keys nearest to key: first by the whole path
// (typos: extract.modle → extract.model, extrct → extract), then by the
// last part alone (a key in the wrong section: model → extract.model or
// compact.model).
func suggestions(key string) []string {
	typed := strings.ToLower(key)
	leaf := typed[strings.LastIndex(typed, ".")+1:]
	limit := min(3, max(1, len(leaf)/3))
	var best []string
	bestD := limit + 1
	for _, k := range knownKeys() {
		switch d := suggest.Distance(typed, k); {
		case d < bestD:
			best, bestD = []string{k}, d
		case d == bestD:
			best = append(best, k)
		}
	}
	if len(best) > 0 {
		return best
	}
	for _, k := range knownKeys() {
		kLeaf := k[strings.LastIndex(k, ".")+1:]
		if strings.Contains(k, ".") && suggest.Distance(leaf, kLeaf) <= 1 {
			best = append(best, k)
		}
	}
	return best
}

func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
