package index

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
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

// HasCanonical reports whether Canonical(text) == canon, without building
// Canonical(text): it stops at the first byte that differs, so comparing
// one fact with every fact of a large store costs little more than a look
// at each one's first words.
func HasCanonical(text, canon string) bool {
	i := 0 // bytes of canon matched
	space := false
	var buf [utf8.UTFMax]byte
	for _, r := range text {
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = i > 0
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
		default:
			if space {
				if i >= len(canon) || canon[i] != ' ' {
					return false
				}
				i++
				space = false
			}
			n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
			if len(canon)-i < n || canon[i:i+n] != string(buf[:n]) {
				return false
			}
			i += n
		}
	}
	return i == len(canon)
}
