package index

import (
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/verdicts"
)

// entryLine is a memory's index line, rendered the first time an index
// builder asks for it, with the fields it is rendered from (as parsed),
// and its section and scope: the index builders use each while the fields
// it came from still match, so rebuilding the indexes of a large store is
// mostly copying, and touches little of each memory's text (a string
// compared with the copy here is compared by pointer). Rendering waits
// for the first use because it runs the secret detector, which a reader
// that builds no index (search, show, the MCP server) never needs. Its
// fields never change after Parse; line is set once, under once.
type entryLine struct {
	file, name, title, description string
	typ                            string // section is section(typ)
	section                        uint8
	project                        string // scope is m.Scope() for this project
	scope                          string
	verdicts                       *verdicts.Set // the detector's clean verdicts, for rendering

	once sync.Once
	line []byte
}

func newEntryLine(m *Memory, set *verdicts.Set) *entryLine {
	return &entryLine{file: m.File, name: m.Name, title: m.Title, description: m.Description,
		typ: m.Type, section: section(m.Type), project: m.Project, scope: m.Scope(), verdicts: set}
}

// rendered is the line, rendered from the fields as parsed on first use.
// It is safe for concurrent use (memories are shared between snapshots).
func (l *entryLine) rendered() []byte {
	l.once.Do(func() {
		m := &Memory{File: l.file, Name: l.name, Title: l.title, Description: l.description}
		l.line = appendScreened(make([]byte, 0, entrySizeHint(m)), m, l.verdicts)
	})
	return l.line
}

// itemOf returns m as an index item, from what was cached at parse time
// where it still holds.
func itemOf(m *Memory) (it item, scope string) {
	l := m.line
	if l == nil {
		return item{m, entryBytes(m), section(m.Type)}, m.Scope()
	}
	it = item{m: m, sec: l.section}
	if l.file != m.File || l.name != m.Name || l.title != m.Title || l.description != m.Description {
		it.line = appendRendered(make([]byte, 0, entrySizeHint(m)), m)
	} else {
		it.line = l.rendered()
	}
	if l.typ != m.Type {
		it.sec = section(m.Type)
	}
	scope = l.scope
	if l.project != m.Project {
		scope = m.Scope()
	}
	return it, scope
}

// entrySizeHint is about the length of m's index line.
func entrySizeHint(m *Memory) int {
	n := 16 + len(m.File) + len(m.Description)
	if m.Title != "" {
		return n + len(m.Title)
	}
	return n + len(m.Name)
}

// entryBytes returns m's index line, "- [Title](file.md) — description\n":
// the line cached with the parse while the fields it came from still
// match (callers must not change it), else a new one.
func entryBytes(m *Memory) []byte {
	if l := m.line; l != nil && l.file == m.File && l.name == m.Name && l.title == m.Title &&
		l.description == m.Description {
		return l.rendered()
	}
	return appendRendered(make([]byte, 0, entrySizeHint(m)), m)
}

// appendRendered appends m's index line. A secret in the title or the
// description is replaced by secrets.Redacted: the fact itself is held out
// of commits by the screen, and its line must not hold the index with it.
func appendRendered(b []byte, m *Memory) []byte {
	return appendScreened(b, m, nil)
}

// appendScreened is appendRendered that skips the secret detector when
// set holds the exact title and description as found clean, and records
// them there when the detector finds them so.
func appendScreened(b []byte, m *Memory, set *verdicts.Set) []byte {
	if set == nil || m.Title == "" && m.Description == "" {
		title, _ := secrets.Redact(m.Title)
		description, _ := secrets.Redact(m.Description)
		return appendLine(b, m, title, description)
	}
	key := verdicts.KeyOf(verdicts.IndexLine, m.Title, m.Description)
	if set.Clean(key) {
		return appendLine(b, m, m.Title, m.Description)
	}
	title, n := secrets.Redact(m.Title)
	description, n2 := secrets.Redact(m.Description)
	if n+n2 == 0 {
		set.Add(key)
	}
	return appendLine(b, m, title, description)
}

// appendLine appends m's index line with title and description, already
// redacted.
func appendLine(b []byte, m *Memory, title, description string) []byte {
	b = append(b, "- ["...)
	switch {
	case !blank(title, 0):
		b = appendOneLine(b, title, escapeBrackets)
	case !blank(m.Name, hyphensAsSpaces):
		b = appendOneLine(b, m.Name, hyphensAsSpaces|upperFirst|escapeBrackets)
	default:
		b = appendOneLine(b, m.File, escapeBrackets)
	}
	b = append(b, "]("...)
	b = appendLinkTarget(b, m.File)
	b = append(b, ')')
	if !blank(description, 0) {
		b = append(b, " — "...)
		b = appendOneLine(b, description, 0)
	}
	return append(b, '\n')
}

// appendLinkTarget appends file with each path segment percent-encoded
// where needed.
func appendLinkTarget(b []byte, file string) []byte {
	plain := true
	for i := 0; i < len(file) && plain; i++ {
		c := file[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '/' || c == '~'
	}
	if plain {
		return append(b, file...)
	}
	for i, p := range strings.Split(file, "/") {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, url.PathEscape(p)...)
	}
	return b
}

// textMode says how appendOneLine transforms text.
type textMode uint8

const (
	hyphensAsSpaces textMode = 1 << iota // "prefers-tabs" reads "prefers tabs"
	upperFirst                           // upper-case the first letter
	escapeBrackets                       // backslash before \, [ and ] (link text)
)

// isGap reports whether r separates words on an index line: whitespace,
// control characters, and hyphens in hyphensAsSpaces mode.
func isGap(r rune, mode textMode) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f || r == '-' && mode&hyphensAsSpaces != 0
	}
	return unicode.IsSpace(r) || unicode.IsControl(r)
}

// plainByte reports whether the ASCII byte c is copied as it is.
func plainByte(c byte, mode textMode) bool {
	switch {
	case c <= ' ' || c >= 0x7f:
		return false
	case c == '-':
		return mode&hyphensAsSpaces == 0
	case c == '\\' || c == '[' || c == ']':
		return mode&escapeBrackets == 0
	}
	return true
}

// blank reports whether s has nothing but gaps.
func blank(s string, mode textMode) bool {
	for _, r := range s {
		if !isGap(r, mode) {
			return false
		}
	}
	return true
}

// appendOneLine appends s on one line: every run of gaps becomes one space,
// and none lead or trail. Invalid UTF-8 becomes U+FFFD.
func appendOneLine(b []byte, s string, mode textMode) []byte {
	space, first := false, true
	for i := 0; i < len(s); {
		if !first || mode&upperFirst == 0 {
			j := i
			for j < len(s) && plainByte(s[j], mode) {
				j++
			}
			if j > i { // a run of bytes copied as they are
				if space && !first {
					b = append(b, ' ')
				}
				b = append(b, s[i:j]...)
				space, first, i = false, false, j
				continue
			}
		}
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if isGap(r, mode) {
			space = true
			continue
		}
		if space && !first {
			b = append(b, ' ')
		}
		if first && mode&upperFirst != 0 {
			r = unicode.ToUpper(r)
		}
		space, first = false, false
		if mode&escapeBrackets != 0 && (r == '\\' || r == '[' || r == ']') {
			b = append(b, '\\')
		}
		b = utf8.AppendRune(b, r)
	}
	return b
}

// oneLine returns s as appendOneLine writes it.
func oneLine(s string) string {
	return string(appendOneLine(nil, s, 0))
}

// TitleOf is a fact's title as the index shows it: its title, else its
// name with hyphens as spaces and the first letter upper-cased, else its
// file name.
func TitleOf(title, name, file string) string {
	switch {
	case !blank(title, 0):
		return string(appendOneLine(nil, title, 0))
	case !blank(name, hyphensAsSpaces):
		return string(appendOneLine(nil, name, hyphensAsSpaces|upperFirst))
	}
	return string(appendOneLine(nil, file, 0))
}
