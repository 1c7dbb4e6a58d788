package install

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// parseTOML decodes a TOML document into plain maps; an empty one is an
// empty map.
func parseTOML(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.Decode(string(data), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// tomlStates returns the hooks.state table of a decoded config.toml, or an
// empty map (not part of the document) when there is none.
func tomlStates(doc map[string]any) map[string]any {
	if hooks, ok := doc["hooks"].(map[string]any); ok {
		if states, ok := hooks["state"].(map[string]any); ok {
			return states
		}
	}
	return map[string]any{}
}

// sameTOML reports whether two decoded documents hold the same keys and
// values, tables left empty by memoryd's removals counting as absent.
func sameTOML(a, b map[string]any) bool {
	return reflect.DeepEqual(pruneTOML(a), pruneTOML(b))
}

// pruneTOML drops empty tables, recursively.
func pruneTOML(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if t, ok := v.(map[string]any); ok {
			t = pruneTOML(t)
			if len(t) == 0 {
				continue
			}
			v = t
		}
		out[k] = v
	}
	return out
}

// tomlInlineTables returns the dotted paths (parts joined with ".", as
// written, unquoted) of the keys that data, a document that parses, sets
// to an inline table: `a = { … }` at the top level, `b.c = { … }` in a
// [a] table. A [header] for a table under such a key is invalid TOML.
func tomlInlineTables(data []byte) map[string]bool {
	out := map[string]bool{}
	sc := &tomlScanner{s: string(data)}
	var table []string
	for sc.i < len(sc.s) {
		sc.skip(" \t\r\n")
		switch {
		case sc.at(""):
		case sc.at("#"):
			sc.skipLine()
		case sc.at("["):
			sc.i++
			if sc.at("[") {
				sc.i++
			}
			table = sc.key()
			sc.skipLine()
		default:
			path := append(append([]string{}, table...), sc.key()...)
			sc.skip(" \t")
			if sc.at("=") {
				sc.i++
			}
			sc.skip(" \t")
			if sc.at("{") {
				out[strings.Join(path, ".")] = true
			}
			sc.value()
		}
	}
	return out
}

// tomlScanner reads just enough TOML for tomlInlineTables: keys, and
// values skipped whole.
type tomlScanner struct {
	s string
	i int // the next byte to read
}

// at reports whether the text at the scanner starts with p; "" means at
// the end.
func (t *tomlScanner) at(p string) bool {
	if p == "" {
		return t.i >= len(t.s)
	}
	return strings.HasPrefix(t.s[t.i:], p)
}

// skip moves past the bytes in set.
func (t *tomlScanner) skip(set string) {
	for t.i < len(t.s) && strings.IndexByte(set, t.s[t.i]) >= 0 {
		t.i++
	}
}

// skipLine moves to the end of the line.
func (t *tomlScanner) skipLine() {
	for t.i < len(t.s) && t.s[t.i] != '\n' {
		t.i++
	}
}

// key reads a dotted key.
func (t *tomlScanner) key() []string {
	var parts []string
	for {
		t.skip(" \t")
		parts = append(parts, t.keyPart())
		t.skip(" \t")
		if !t.at(".") {
			return parts
		}
		t.i++
	}
}

// keyPart reads one part of a dotted key: quoted, literal or bare.
func (t *tomlScanner) keyPart() string {
	s, i := t.s, t.i
	switch {
	case i < len(s) && s[i] == '"':
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		var part string
		if json.Unmarshal([]byte(s[i:min(j+1, len(s))]), &part) != nil {
			part = s[i+1 : min(j, len(s))]
		}
		t.i = min(j+1, len(s))
		return part
	case i < len(s) && s[i] == '\'':
		j := strings.IndexByte(s[i+1:], '\'')
		if j < 0 {
			t.i = len(s)
			return ""
		}
		t.i = i + j + 2
		return s[i+1 : i+1+j]
	}
	j := i
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '-') {
		j++
	}
	t.i = j
	return s[i:j]
}

// value skips a value, strings, arrays and inline tables included.
func (t *tomlScanner) value() {
	t.skip(" \t")
	depth := 0
	for t.i < len(t.s) {
		c := t.s[t.i]
		switch {
		case t.at(`"""`), t.at(`'''`):
			t.multiline()
			continue
		case c == '"':
			t.i++
			for t.i < len(t.s) && t.s[t.i] != '"' && t.s[t.i] != '\n' {
				if t.s[t.i] == '\\' {
					t.i++
				}
				t.i++
			}
		case c == '\'':
			if j := strings.IndexByte(t.s[t.i+1:], '\''); j >= 0 {
				t.i += j + 1
			}
		case c == '#':
			t.skipLine()
			continue
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == '\n' && depth <= 0:
			return
		}
		t.i++
	}
}

// multiline skips a multi-line string, its quotes included.
func (t *tomlScanner) multiline() {
	q := t.s[t.i : t.i+3]
	j := strings.Index(t.s[t.i+3:], q)
	if j < 0 {
		t.i = len(t.s)
		return
	}
	t.i += 3 + j + 3
	for t.i < len(t.s) && t.s[t.i] == q[0] { // up to two quotes may end the string
		t.i++
	}
}
