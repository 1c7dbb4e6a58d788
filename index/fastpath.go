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
func fastFields(text string) (f fields, ok bool) {
	if !plainText(text) {
		return f, false
	}
	var top, nested []string // keys seen, to leave duplicates to yaml.v3
	var topType, metaType string
	block := "" // the top-level key whose indented block we are in
	indent := 0 // that block's indentation, once known
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		body := strings.TrimLeft(line, " ")
		if body == "" && line != "" {
			return f, false // a line of only spaces
		}
		if body == "" || body[0] == '#' {
			continue
		}
		key, val, hasVal, ok := plainPair(body)
		if !ok {
			return f, false
		}
		if depth := len(line) - len(body); depth > 0 {
			switch {
			case block == "" || indent != 0 && depth != indent || slices.Contains(nested, key):
				return f, false
			case block == "name", block == "title", block == "description", block == "type":
				return f, false // not a single value: yaml.v3 reports it
			}
			indent = depth
			nested = append(nested, key)
			if block == "metadata" && key == "type" {
				metaType = scalarValue(val)
			} else if block == "metadata" && key == "readonly" {
				f.readonly = truthy(scalarValue(val))
			}
			continue
		}
		if len(top) > 64 || slices.Contains(top, key) {
			return f, false
		}
		top = append(top, key)
		block, indent, nested = "", 0, nested[:0]
		if !hasVal {
			block = key // a null, or the start of an indented block
			continue
		}
		switch key {
		case "name":
			f.name = scalarValue(val)
		case "title":
			f.title = scalarValue(val)
		case "description":
			f.description = scalarValue(val)
		case "type":
			topType = scalarValue(val)
		case "metadata":
			return f, false // an inline value: yaml.v3 decides
		}
	}
	if metaType == "" {
		metaType = topType
	}
	f.typ = strings.ToLower(strings.TrimSpace(metaType))
	return f, true
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
