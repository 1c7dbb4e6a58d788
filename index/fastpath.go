package index

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// fastFields reads the known fields of frontmatter written in the plain
// subset of YAML that memory files almost always use, without building a
// YAML tree: "key: value" lines at the left margin, a "key:" line followed by
// one level of indented "key: value" lines (metadata), blank lines and
// comment lines. Values are plain scalars that need no quoting. Anything
// else — quotes, flow or block collections and scalars, tabs, anchors,
// duplicate keys, deeper nesting — returns ok=false and Parse goes through
// yaml.v3, which also produces the error messages. Where it returns ok, the
// fields equal what the yaml.v3 path returns (FuzzFastPath checks this).
//
// This matters for speed: a Scan of 10,000 files spends most of its time in
// yaml.v3 otherwise.
func fastFields(text string) (fields, bool) {
	if !plainText(text) {
		return fields{}, false
	}
	var r fastReader
	r.top, r.nested = r.topBuf[:0], r.nestedBuf[:0]
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		body := strings.TrimLeft(line, " ")
		if body == "" && line != "" {
			return fields{}, false // a line of only spaces
		}
		if body == "" || body[0] == '#' {
			continue
		}
		key, val, hasVal, ok := plainPair(body)
		if depth := len(line) - len(body); depth > 0 {
			ok = ok && r.nestedPair(depth, key, val)
		} else {
			ok = ok && r.topPair(key, val, hasVal)
		}
		if !ok {
			return fields{}, false
		}
	}
	if r.metaType == "" {
		r.metaType = r.topType
	}
	r.f.typ = strings.ToLower(strings.TrimSpace(r.metaType))
	return r.f, true
}

// fastReader is the state of fastFields between lines.
type fastReader struct {
	f                 fields
	topType, metaType string
	top, nested       []string // keys seen, to leave duplicates to yaml.v3
	block             string   // the top-level key whose indented block we are in
	indent            int      // that block's indentation, once known

	topBuf, nestedBuf [8]string
}

func (r *fastReader) topPair(key, val string, hasVal bool) bool {
	if len(r.top) > 64 || slices.Contains(r.top, key) {
		return false
	}
	r.top = append(r.top, key)
	r.block, r.indent, r.nested = "", 0, r.nested[:0]
	if !hasVal {
		r.block = key // a null, or the start of an indented block
		return true
	}
	switch key {
	case "name":
		r.f.name = scalarValue(val)
	case "title":
		r.f.title = scalarValue(val)
	case "description":
		r.f.description = scalarValue(val)
	case "type":
		r.topType = scalarValue(val)
	case "metadata":
		return false // an inline value: yaml.v3 decides
	}
	return true
}

func (r *fastReader) nestedPair(depth int, key, val string) bool {
	switch r.block {
	case "", "name", "title", "description", "type":
		return false // a continuation line, or a known key that is not a single value
	}
	if r.indent != 0 && depth != r.indent || len(r.nested) > 64 || slices.Contains(r.nested, key) {
		return false
	}
	r.indent = depth
	r.nested = append(r.nested, key)
	if r.block == "metadata" {
		switch key {
		case "type":
			r.metaType = scalarValue(val)
		case "readonly":
			r.f.readonly = truthy(scalarValue(val))
		case "pinned":
			r.f.pinned = truthy(scalarValue(val))
		case "project":
			r.f.project = scalarValue(val)
		case "updated":
			r.f.updated = scalarValue(val)
		}
	}
	return true
}

// plainPair splits "key: value" or "key:" where key is [A-Za-z_][A-Za-z0-9_-]{0,127}
// and value a plain scalar that YAML reads as its own text.
func plainPair(s string) (key, val string, hasVal, ok bool) {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_' ||
		i > 0 && (s[i] >= '0' && s[i] <= '9' || s[i] == '-')) {
		i++
	}
	// YAML limits implicit keys to 1024 characters; stay well below.
	if i == 0 || i > 128 || i == len(s) || s[i] != ':' {
		return "", "", false, false
	}
	key, rest := s[:i], s[i+1:]
	if rest == "" {
		return key, "", false, true
	}
	if rest[0] != ' ' || len(rest) < 2 {
		return "", "", false, false
	}
	val = rest[1:]
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@` ", rune(val[0])) || val[len(val)-1] == ' ' ||
		val[len(val)-1] == ':' || strings.Contains(val, ": ") || strings.Contains(val, " #") {
		return "", "", false, false
	}
	return key, val, true, true
}

// scalarValue is what the yaml.v3 path reads from a plain scalar: its text,
// or "" for the null spellings.
func scalarValue(v string) string {
	switch v {
	case "~", "null", "Null", "NULL":
		return ""
	}
	return v
}

// plainText reports whether text has only characters YAML reads as printable
// and not as line breaks, besides LF: no tabs, CRs, NEL, LS, PS, BOM or
// other control characters.
func plainText(text string) bool {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0xA0, r == 0x2028, r == 0x2029, r == 0xFEFF, r >= 0xD800 && r < 0xE000, r == 0xFFFE, r == 0xFFFF:
			return false
		}
		i += size
	}
	return true
}
