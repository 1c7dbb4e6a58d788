package index

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// frontLine is the file line where the frontmatter text starts (after "---").
const frontLine = 2

// readFrontmatter parses the frontmatter text and returns the known fields.
func readFrontmatter(rel, front string) (fields, error) {
	doc, err := decodeFrontmatter(rel, front)
	if err != nil {
		return fields{}, err
	}
	return knownFields(rel, doc.Content[0])
}

// decodeFrontmatter parses front into a document node whose one child is
// the root mapping. Empty frontmatter is an empty mapping.
func decodeFrontmatter(rel, front string) (*yaml.Node, error) {
	doc := new(yaml.Node)
	if err := yaml.Unmarshal([]byte(front), doc); err != nil {
		return nil, yamlError(rel, front, err)
	}
	if doc.Kind != yaml.DocumentNode {
		doc = &yaml.Node{Kind: yaml.DocumentNode, HeadComment: doc.HeadComment, FootComment: doc.FootComment}
	}
	if len(doc.Content) == 0 {
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	if root := doc.Content[0]; root.Kind != yaml.MappingNode {
		return nil, &ParseError{rel, root.Line + frontLine - 1, "frontmatter is not a mapping of keys to values"}
	}
	return doc, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the yaml.v3 parser (not scanner) errors. yaml.v3
// reports their line 0-based (scanner errors are 1-based), and at the start
// of the construct it was parsing rather than where it gave up.
var yamlParserProblems = map[string]bool{
	"did not find expected <stream-start>": true, "did not find expected <document start>": true,
	"found undefined tag handle": true, "did not find expected node content": true,
	"did not find expected '-' indicator": true, "did not find expected key": true,
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"found duplicate %YAML directive": true, "found incompatible YAML document": true,
	"found duplicate %TAG directive": true,
}

// yamlError turns a yaml.v3 error into a *ParseError with a file line.
func yamlError(rel, front string, err error) error {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			n++
		}
		// An error at the end of the text points at the closing "---".
		n = min(n, strings.Count(front, "\n")+1)
		return &ParseError{rel, n + frontLine - 1, "invalid YAML: " + m[2]}
	}
	// yaml.v3 leaves the line out for its first line, and for a few
	// errors that concern the whole text.
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := frontLine
	for i, l := range lines(front) {
		if strings.IndexFunc(l, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
			line = i + frontLine
			break
		}
	}
	return &ParseError{rel, line, "invalid YAML: " + msg}
}

// knownFields reads name, title, description, type and metadata.{type,readonly}
// from the root mapping and rejects duplicate keys.
func knownFields(rel string, root *yaml.Node) (fields, error) {
	var f fields
	if err := checkDuplicates(rel, root); err != nil {
		return f, err
	}
	var topType, metaType string
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolve(root.Content[i+1])
		var dst *string
		switch k.Value {
		case "name":
			dst = &f.name
		case "title":
			dst = &f.title
		case "description":
			dst = &f.description
		case "type":
			dst = &topType
		case "metadata":
			var err error
			if metaType, f.readonly, err = metadataFields(rel, v); err != nil {
				return f, err
			}
			continue
		default:
			continue
		}
		s, err := scalarString(rel, k.Value, v)
		if err != nil {
			return f, err
		}
		*dst = s
	}
	if metaType == "" {
		metaType = topType
	}
	f.typ = strings.ToLower(strings.TrimSpace(metaType))
	return f, nil
}

func metadataFields(rel string, v *yaml.Node) (typ string, readonly bool, err error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return "", false, nil
	}
	if v.Kind != yaml.MappingNode {
		return "", false, &ParseError{rel, v.Line + frontLine - 1, "metadata is not a mapping of keys to values"}
	}
	if err := checkDuplicates(rel, v); err != nil {
		return "", false, err
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		switch k.Value {
		case "type":
			if typ, err = scalarString(rel, "metadata.type", val); err != nil {
				return "", false, err
			}
		case "readonly":
			readonly = val.Kind == yaml.ScalarNode && truthy(val.Value)
		}
	}
	return typ, readonly, nil
}

// truthy reads a readonly flag generously: a hand-curated file marked
// "yes" should be protected as much as one marked "true".
func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func scalarString(rel, key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", &ParseError{rel, v.Line + frontLine - 1, key + " is not a single value"}
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

// checkDuplicates rejects a mapping that defines a key twice, as YAML
// decoders (and the agents reading these files) do.
func checkDuplicates(rel string, m *yaml.Node) error {
	n := len(m.Content) / 2
	if n < 2 {
		return nil
	}
	seen := make(map[string]int, n)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if first, ok := seen[k.Value]; ok {
			return &ParseError{rel, k.Line + frontLine - 1,
				fmt.Sprintf("key %q is defined twice (first on line %d)", k.Value, first)}
		}
		seen[k.Value] = k.Line + frontLine - 1
	}
	return nil
}
