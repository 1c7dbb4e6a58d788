package install

import (
	"reflect"

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
