package index

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// fastFields reads the known fields of frontmatter written in the plain
// subset of YAML that memory files almost always use, without building a
// YAML tree: "key: value" lines, where a "key:" line may open a block of
// more indented "key: value" lines (metadata, and below it any other
// mapping, up to maxFastDepth levels), blank lines and comment
// lines. Values are plain scalars that need no quoting. Anything else —
// quotes, flow or block collections and scalars, sequences, tabs, anchors,
// duplicate keys, uneven indentation, a block under a known key, and
// metadata.source in any form (readSources decides what it means) — returns
// ok=false and Parse goes through yaml.v3, which also produces the error
// messages. Where it returns ok, the fields equal what the yaml.v3 path
// returns (FuzzFastPath checks this).
//
// This matters for speed: a Scan of 10,000 files spends most of its time in
// yaml.v3 otherwise (a file with nested metadata parses about 15 times
// slower there).
func fastFields(text string) (fields, bool) {
	if !plainText(text) {
		return fields{}, false
	}
	r := fastReader{nlevels: 1} // the top level, open from the start
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
		if !ok || !r.pair(len(line)-len(body), key, val, hasVal) {
			return fields{}, false
		}
	}
	if r.metaType == "" {
		r.metaType = r.topType
	}
	r.f.typ = strings.ToLower(strings.TrimSpace(r.metaType))
	return r.f, true
}

// maxFastDepth is the deepest nesting fastFields reads: the top, metadata,
// and two levels below (metadata.source and a mapping inside it).
const maxFastDepth = 4

// maxFastKeys is the most keys fastFields keeps track of at once, in the
// open mappings together; a frontmatter with more goes to yaml.v3.
const maxFastKeys = 96

// fastReader is the state of fastFields between lines.
type fastReader struct {
	f                 fields
	topType, metaType string
	levels            [maxFastDepth]fastLevel // the open mappings, the top first
	nlevels           int                     // how many are open
	keys              [maxFastKeys]string     // the keys seen in each open mapping, to leave duplicates to yaml.v3
	nkeys             int                     // how many keys holds
	open              string                  // the previous key when it had no value: it may open a block
	opened            bool                    // open is set
}

// fastLevel is one open block mapping.
type fastLevel struct {
	indent int    // its keys' indentation
	key    string // the key that opened it ("" at the top)
	start  int    // where its keys start in fastReader.keys
}

// pair reads one "key: value" or "key:" line indented by depth.
func (r *fastReader) pair(depth int, key, val string, hasVal bool) bool {
	popped := false
	for r.nlevels > 1 && depth < r.levels[r.nlevels-1].indent {
		r.nkeys = r.levels[r.nlevels-1].start
		r.nlevels--
		popped = true
	}
	top := &r.levels[r.nlevels-1]
	switch {
	case depth > top.indent:
		// The first line of a block: only right under a "key:" line,
		// and not under a known key, which must be a single value.
		if popped || !r.opened || r.nlevels == maxFastDepth || r.known(r.open) {
			return false
		}
		r.levels[r.nlevels] = fastLevel{indent: depth, key: r.open, start: r.nkeys}
		r.nlevels++
		top = &r.levels[r.nlevels-1]
	case depth < top.indent:
		return false // between two levels
	}
	r.opened = false
	if mine := r.keys[top.start:r.nkeys]; len(mine) >= 64 || r.nkeys == maxFastKeys || slices.Contains(mine, key) {
		return false
	}
	r.keys[r.nkeys] = key
	r.nkeys++
	if !hasVal {
		r.open, r.opened = key, true // a null, or the start of a block
	}
	switch {
	case r.nlevels == 1:
		return r.topPair(key, val, hasVal)
	case r.nlevels == 2 && top.key == "metadata":
		return r.metaPair(key, val)
	}
	return true
}

// known reports whether key, in the mapping now innermost, is one the
// fields come from, which must not open a block.
func (r *fastReader) known(key string) bool {
	switch r.nlevels {
	case 1:
		switch key {
		case "name", "title", "description", "type":
			return true
		}
	case 2:
		if r.levels[1].key != "metadata" {
			return false
		}
		switch key {
		case "type", "readonly", "pinned", "project", "updated", "source", "cites", "superseded_by", "superseded_at":
			return true
		}
	}
	return false
}

func (r *fastReader) topPair(key, val string, hasVal bool) bool {
	if !hasVal {
		return true // a null, or (metadata, unknown keys) the start of a block
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

// metaPair reads one key of metadata. metadata.source, whose forms
// (a list of origins, one mapping, a name) only readSources knows, and
// metadata.cites (readCites) are left to yaml.v3 whatever their value.
func (r *fastReader) metaPair(key, val string) bool {
	switch key {
	case "source", "cites":
		return false
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
	case "superseded_by":
		r.f.supersededBy = strings.TrimSpace(scalarValue(val))
	case "superseded_at":
		r.f.supersededAt = scalarValue(val)
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
