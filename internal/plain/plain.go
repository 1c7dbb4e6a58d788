// Package plain keeps the control characters but newline and tab out of
// text memoryd prints that quotes a model's answer or a file: on its way to
// a terminal (or into an agent's context) it must not move the cursor,
// clear the screen, retitle the window or ring.
package plain

import (
	"io"
	"strings"
)

// Text takes the control characters but newline and tab out of s:
// text that quotes a model's answer or a file, on its way to a terminal,
// must not move the cursor, clear the screen, retitle the window or ring.
func Text(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

func isControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0
}

// Writer writes through Text. Each Write is a whole line or
// more of memoryd's own printing, so no character is split between two.
type Writer struct{ W io.Writer }

func (p Writer) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.W, Text(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
