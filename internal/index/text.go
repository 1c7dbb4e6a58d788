package index

import (
	"bytes"
	"strings"
	"unicode"
)

// countLines counts lines; a last line without a newline counts.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// CountConflicts returns the number of unresolved contradictions in the
// bytes of _CONFLICTS.md: lines that start with "## ".
func CountConflicts(data []byte) int {
	data = bytes.TrimPrefix(data, []byte(bom))
	n := 0
	if bytes.HasPrefix(data, []byte("## ")) {
		n++
	}
	return n + bytes.Count(data, []byte("\n## "))
}

// Canonical returns the deduplication key of a text: lower-cased, with
// punctuation and symbols removed (not replaced: "e-mail" and "email" are
// the same), runs of whitespace collapsed to one space, and trimmed.
func Canonical(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	space := false
	for _, r := range text {
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
