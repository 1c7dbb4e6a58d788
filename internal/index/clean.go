package index

import (
	"strings"
	"unicode/utf8"
)

// CleanText makes text from a language model safe to put in a memory file,
// MEMORY.md, a commit message or a log line. It drops invalid UTF-8, NUL
// and every other control character — except, when multiline, newline and
// tab (CR LF becomes LF); on one line, newlines and tabs become spaces —
// and the invisible characters that reorder or hide text (bidirectional
// overrides, isolates and marks, the BOM). The result is cut to at most
// limit bytes at a character boundary (limit <= 0: no cut).
func CleanText(s string, multiline bool, limit int) string {
	if isClean(s, multiline) && (limit <= 0 || len(s) <= limit) {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ReplaceAll(s, "\r\n", "\n") {
		if !multiline && (r == '\n' || r == '\t') {
			r = ' '
		}
		if !keepRune(r, multiline) {
			continue
		}
		if limit > 0 && b.Len()+utf8.RuneLen(r) > limit {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isClean(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c < 0x20 || c == 0x7f {
			for _, r := range s[i:] {
				if !keepRune(r, multiline) {
					return false
				}
			}
			return true
		}
	}
	return true
}

// keepRune reports whether r may stay in model text.
func keepRune(r rune, multiline bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return multiline
	case r == utf8.RuneError, r < 0x20, r >= 0x7f && r < 0xa0:
		return false
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c, r == 0xfeff:
		return false // bidirectional controls and the BOM
	}
	return true
}
