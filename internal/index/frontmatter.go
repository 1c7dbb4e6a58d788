package index

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// frontLine is the file line where the frontmatter text starts (after "---").
const frontLine = 2

// frontmatter is the YAML text between the "---" lines of one file.
type frontmatter struct {
	rel  string
	text string
}

// readFrontmatter parses the frontmatter text and returns the known fields.
func readFrontmatter(rel, text string) (fields, error) {
	if f, ok := fastFields(text); ok {
		return f, nil
	}
	return slowFields(rel, text)
}

// slowFields is readFrontmatter through yaml.v3.
func slowFields(rel, text string) (fields, error) {
	fm := frontmatter{rel, text}
	doc, err := fm.decode()
	if err != nil {
		return fields{}, err
	}
	return fm.known(doc.Content[0])
}

// decodeFrontmatter parses text into a document node whose one child is
// the root mapping. Empty frontmatter is an empty mapping.
func decodeFrontmatter(rel, text string) (*yaml.Node, error) {
	return frontmatter{rel, text}.decode()
}

func (fm frontmatter) decode() (*yaml.Node, error) {
	doc := new(yaml.Node)
	if err := yaml.Unmarshal([]byte(fm.text), doc); err != nil {
		return nil, fm.yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode {
		doc = &yaml.Node{Kind: yaml.DocumentNode, HeadComment: doc.HeadComment, FootComment: doc.FootComment}
	}
	if len(doc.Content) == 0 {
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	if root := doc.Content[0]; root.Kind != yaml.MappingNode {
		return nil, fm.errorAt(root.Line, "frontmatter is not a mapping of keys to values")
	}
	if err := fm.checkDuplicates(doc.Content[0]); err != nil {
		return nil, err
	}
	return doc, nil
}

// fileLine turns a 1-based yaml.v3 line into a file line. YAML also breaks
// lines at a lone CR, NEL, LS and PS; the file counts only LF. A line past
// the end is the closing "---".
func (fm frontmatter) fileLine(yamlLine int) int {
	y, f := 1, frontLine
	for i := 0; i < len(fm.text) && y < yamlLine; {
		r, size := utf8.DecodeRuneInString(fm.text[i:])
		switch r {
		case '\n':
			y, f = y+1, f+1
		case '\r', 0x85, 0x2028, 0x2029:
			y++
		}
		i += size
	}
	return f
}

func (fm frontmatter) errorAt(yamlLine int, msg string) *ParseError {
	return &ParseError{fm.rel, fm.fileLine(yamlLine), msg}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the yaml.v3 parser (not scanner) errors. yaml.v3
// reports their line 0-based (scanner errors are 1-based), and at the start
// of the construct it was parsing rather than where it gave up, so their
// line can be a little early.
var yamlParserProblems = map[string]bool{
	"did not find expected <stream-start>": true, "did not find expected <document start>": true,
	"found undefined tag handle": true, "did not find expected node content": true,
	"did not find expected '-' indicator": true, "did not find expected key": true,
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"found duplicate %YAML directive": true, "found incompatible YAML document": true,
	"found duplicate %TAG directive": true,
}

// yamlError turns a yaml.v3 error into a *ParseError with a file line.
func (fm frontmatter) yamlError(err error) error {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			n++
		}
		return fm.errorAt(n, "invalid YAML: "+m[2])
	}
	// yaml.v3 leaves the line out for its first line, and for a few
	// errors about the whole text; point at a control character if any.
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := frontLine
	for i, l := range lines(fm.text) {
		if strings.IndexFunc(l, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
			line = i + frontLine
			break
		}
	}
	return &ParseError{fm.rel, line, "invalid YAML: " + msg}
}

// known reads name, title, description, type and
// metadata.{type,readonly,project,updated,pinned} from the root mapping.
func (fm frontmatter) known(root *yaml.Node) (fields, error) {
	var f fields
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
			if metaType, err = fm.metadata(v, &f); err != nil {
				return f, err
			}
			continue
		default:
			continue
		}
		s, err := fm.scalar(k.Value, v)
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

// metadata reads metadata.type (returned, for known to weigh against a
// top-level type) and metadata.{readonly,project,updated,pinned} into f.
// Only metadata.type must be a single value: the others, which only place
// and order the index, read as unset otherwise.
func (fm frontmatter) metadata(v *yaml.Node, f *fields) (typ string, err error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return "", nil
	}
	if v.Kind != yaml.MappingNode {
		return "", fm.errorAt(v.Line, "metadata is not a mapping of keys to values")
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		plain := val.Kind == yaml.ScalarNode && val.Tag != "!!null"
		switch k.Value {
		case "type":
			if typ, err = fm.scalar("metadata.type", val); err != nil {
				return "", err
			}
		case "readonly":
			f.readonly = plain && truthy(val.Value)
		case "pinned":
			f.pinned = plain && truthy(val.Value)
		case "project":
			f.project = ""
			if plain {
				f.project = val.Value
			}
		case "updated":
			f.updated = ""
			if plain {
				f.updated = val.Value
			}
		case "source":
			f.sources = encodeSources(readSources(val))
		case "cites":
			f.cites = encodeCites(readCites(val))
		case "superseded_by":
			f.supersededBy = ""
			if plain {
				f.supersededBy = strings.TrimSpace(val.Value)
			}
		case "superseded_at":
			f.supersededAt = ""
			if plain {
				f.supersededAt = val.Value
			}
		}
	}
	return typ, nil
}

func (fm frontmatter) scalar(key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", fm.errorAt(v.Line, key+" is not a single value")
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

// checkDuplicates rejects a mapping, at any depth below n, that defines a
// key twice, as YAML decoders (and the agents reading these files) do.
func (fm frontmatter) checkDuplicates(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode && len(n.Content) >= 4 {
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if first, ok := seen[k.Value]; ok {
				return fm.errorAt(k.Line, fmt.Sprintf("key %q is defined twice (first on line %d)", k.Value, fm.fileLine(first)))
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := fm.checkDuplicates(c); err != nil {
			return err
		}
	}
	return nil
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
