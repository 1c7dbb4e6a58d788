// Package shell is the one quoting rule for the POSIX shell command lines
// memoryd writes: the hooks in the agents' configuration, the commands
// that status, doctor and git problems tell the user to run. Quote writes
// a word; Words reads back a line Quote wrote.
package shell

import "strings"

// safe are the bytes, besides ASCII letters and digits, that a shell word
// may hold unquoted: none of them is special to a POSIX shell anywhere in
// a word (a "~" is, at a word's start).
const safe = "/._-+=:,@%"

// Quote returns s as one word of a POSIX shell command line: as it is when
// every byte is a letter, a digit or one of safe, else in single quotes,
// with a single quote inside written '\”.
func Quote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(safe, r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

// Words splits a command line as Quote writes it — plain words and
// single-quoted ones, '\” inside — into its words; ok is false for a line
// Quote could not have written (other quoting, expansions, operators).
func Words(s string) (words []string, ok bool) {
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == '\\' && i+1 < len(s) && s[i+1] == '\'':
			cur.WriteByte('\'') // the '\'' inside a quoted word
			i, in = i+1, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case strings.IndexByte("\"\\$`;&|<>(){}*?[]#~\n", c) >= 0:
			return nil, false
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quoted {
		return nil, false
	}
	if in {
		words = append(words, cur.String())
	}
	return words, true
}
