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
	s := string(data)
	var table []string
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	// key reads a dotted key at i.
	key := func() []string {
		var parts []string
		for {
			skipSpace()
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
				parts, i = append(parts, part), min(j+1, len(s))
			case i < len(s) && s[i] == '\'':
				j := strings.IndexByte(s[i+1:], '\'')
				if j < 0 {
					return parts
				}
				parts, i = append(parts, s[i+1:i+1+j]), i+j+2
			default:
				j := i
				for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '-') {
					j++
				}
				parts, i = append(parts, s[i:j]), j
			}
			skipSpace()
			if i >= len(s) || s[i] != '.' {
				return parts
			}
			i++
		}
	}
	// value skips a value at i, strings, arrays and inline tables included.
	var value func()
	value = func() {
		skipSpace()
		depth := 0
		for i < len(s) {
			c := s[i]
			switch {
			case strings.HasPrefix(s[i:], `"""`), strings.HasPrefix(s[i:], `'''`):
				q := s[i : i+3]
				j := strings.Index(s[i+3:], q)
				if j < 0 {
					i = len(s)
					return
				}
				i += 3 + j + 3
				for i < len(s) && s[i] == q[0] { // up to two quotes may end the string
					i++
				}
				continue
			case c == '"':
				i++
				for i < len(s) && s[i] != '"' && s[i] != '\n' {
					if s[i] == '\\' {
						i++
					}
					i++
				}
			case c == '\'':
				if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
					i += j + 1
				}
			case c == '#':
				for i < len(s) && s[i] != '\n' {
					i++
				}
				continue
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				depth--
			case c == '\n' && depth <= 0:
				return
			}
			i++
		}
	}
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++
		}
		switch {
		case i >= len(s):
		case s[i] == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case s[i] == '[':
			i++
			if i < len(s) && s[i] == '[' {
				i++
			}
			table = key()
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			path := append(append([]string{}, table...), key()...)
			skipSpace()
			if i < len(s) && s[i] == '=' {
				i++
			}
			skipSpace()
			if i < len(s) && s[i] == '{' {
				out[strings.Join(path, ".")] = true
			}
			value()
		}
	}
	return out
}
