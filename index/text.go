package index

import (
	"bytes"
	"strings"
	"unicode"
)

// Budget is the most of MEMORY.md an agent loads. A zero field means the
// default of DefaultBudget.
type Budget struct {
	Lines int
	Bytes int
}

// DefaultBudget returns the default index budget: 200 lines and 25 KiB.
func DefaultBudget() Budget { return Budget{Lines: 200, Bytes: 25 * 1024} }

// Over reports whether index exceeds the budget, with its line count (a last
// line without a newline counts) and byte count.
func (b Budget) Over(index []byte) (over bool, lines, size int) {
	d := DefaultBudget()
	if b.Lines <= 0 {
		b.Lines = d.Lines
	}
	if b.Bytes <= 0 {
		b.Bytes = d.Bytes
	}
	lines = bytes.Count(index, []byte{'\n'})
	if len(index) > 0 && index[len(index)-1] != '\n' {
		lines++
	}
	return lines > b.Lines || len(index) > b.Bytes, lines, len(index)
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
