package config

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Parse reads YAML from r over c. The YAML is read as a node tree first, so
// that every error can name name:line and the full key path, in the user's
// words rather than Go's types: unknown keys (with a suggestion), values of
// the wrong type, keys set twice. All problems are reported together.
// Each key read records its origin (name and line).
func Parse(r io.Reader, name string, c *Config) error {
	var doc yaml.Node
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty file
		}
		return syntaxError(name, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil // only comments
	}
	p := &yamlReader{name: name, c: c, seen: map[string]int{}}
	p.section(root, "")
	return errors.Join(p.errs...)
}

// yamlReader walks one file's node tree.
type yamlReader struct {
	name string
	c    *Config
	seen map[string]int // key path → line, to catch a key set twice
	errs []error
}

func (p *yamlReader) fail(line int, key, format string, args ...any) {
	p.errs = append(p.errs, &KeyError{
		Origin: Origin{Source: FromFile, File: p.name, Line: line},
		Key:    key,
		Msg:    fmt.Sprintf(format, args...),
	})
}

// section reads a mapping whose keys are prefix.<key> ("" for the top).
func (p *yamlReader) section(n *yaml.Node, prefix string) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		if prefix == "" {
			p.errs = append(p.errs, fmt.Errorf("%s:%d: the file must be a list of key: value lines (got %s)", p.name, n.Line, describe(n)))
		} else {
			p.fail(n.Line, prefix, "must be a section of keys such as %s, not %s", exampleKey(prefix), describe(n))
		}
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		key := k.Value
		if prefix != "" {
			key = prefix + "." + key
		}
		if first, dup := p.seen[key]; dup {
			p.fail(k.Line, key, "set twice (first on line %d)", first)
			continue
		}
		p.seen[key] = k.Line
		switch f, known := lookup(key); {
		case isSection(key):
			if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") { // an empty section is fine
				p.section(v, key)
			}
		case !known:
			p.fail(k.Line, key, "%s", unknownKey(key))
		default:
			p.value(f, k, v)
		}
	}
}

// value reads one key's scalar.
func (p *yamlReader) value(f field, k, v *yaml.Node) {
	_, isString := f.ptr(p.c).(*string)
	switch {
	case v.Kind != yaml.ScalarNode:
		p.fail(k.Line, f.key, "must be a single value, not %s", describe(v))
		return
	case v.Tag == "!!null" && isString:
		v = &yaml.Node{Kind: yaml.ScalarNode, Value: ""}
	case v.Tag == "!!null":
		p.fail(k.Line, f.key, "has no value (give one, or delete the line to keep the default)")
		return
	}
	if err := f.setText(p.c, v.Value, false); err != nil {
		p.fail(k.Line, f.key, "%v", err)
		return
	}
	p.c.setOrigin(f.key, Origin{Source: FromFile, File: p.name, Line: k.Line})
}

// deref follows a YAML alias (*name) to its anchor.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a section of keys"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("the value %q", n.Value)
}

// exampleKey names a key of section, for messages.
func exampleKey(section string) string {
	for _, f := range fields {
		if strings.HasPrefix(f.key, section+".") {
			return f.key
		}
	}
	return section + ".…"
}

// syntaxError turns yaml.v3's "yaml: line 3: did not find expected key"
// into "config.yaml:3: did not find expected key".
func syntaxError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok && strings.Trim(num, "0123456789") == "" {
			return fmt.Errorf("%s:%s: %s", name, num, tail)
		}
	}
	return fmt.Errorf("%s: %s", name, msg)
}
