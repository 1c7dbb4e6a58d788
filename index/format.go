package index

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"
)

// Format returns the file's canonical bytes: "---", the frontmatter as YAML
// (two-space indent), "---", then the body with LF line endings and a final
// newline. Keys it does not know, in the frontmatter and in metadata, are
// kept with their comments; a known key is rewritten only when its field
// differs from what Parse read, so formatting an unchanged memory does not
// add keys (a name derived from the file name is not written). Setting a
// field to its zero value removes the key. A changed Type is written where
// the file had it (metadata.type, else a top-level type), else to
// metadata.type. Format is stable: Format(Parse(Format(m))) == Format(m).
//
// Format does not change m and is safe to call from several goroutines.
func (m *Memory) Format() []byte {
	doc := m.document()
	m.syncTo(doc.Content[0], m.fields())
	var b bytes.Buffer
	b.WriteString("---\n")
	if !isEmptyDoc(doc) {
		if err := encodeYAML(&b, doc); err != nil {
			// Unreachable for nodes decoded from text yaml.v3 accepted;
			// keep the known fields rather than fail.
			b.Truncate(len("---\n"))
			fresh := newDocument()
			(&Memory{}).syncTo(fresh.Content[0], m.fields())
			_ = encodeYAML(&b, fresh)
		}
	}
	b.WriteString("---\n")
	body := strings.ReplaceAll(m.Body, "\r\n", "\n")
	b.WriteString(body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func isEmptyDoc(doc *yaml.Node) bool {
	root := doc.Content[0]
	return len(root.Content) == 0 && doc.HeadComment == "" && doc.FootComment == "" &&
		root.HeadComment == "" && root.LineComment == "" && root.FootComment == ""
}

func encodeYAML(b *bytes.Buffer, doc *yaml.Node) error {
	enc := yaml.NewEncoder(b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}

func newDocument() *yaml.Node {
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
}

// document returns a fresh parse of the frontmatter as read, so that Format
// never changes m.
func (m *Memory) document() *yaml.Node {
	if m.front != "" {
		if doc, err := decodeFrontmatter(m.File, m.front); err == nil {
			return doc
		}
	}
	return newDocument()
}

// syncTo writes the fields of cur that differ from what Parse read into root.
func (m *Memory) syncTo(root *yaml.Node, cur fields) {
	o := m.orig
	if cur.name != o.name {
		setString(root, "name", cur.name, "")
	}
	if cur.title != o.title {
		setString(root, "title", cur.title, "name", "")
	}
	if cur.description != o.description {
		setString(root, "description", cur.description, "title", "name", "")
	}
	if cur.typ != o.typ {
		setType(root, cur.typ)
	}
	if cur.readonly != o.readonly {
		if cur.readonly {
			meta := metadataNode(root)
			setValue(meta, "readonly", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}, "type", "")
		} else {
			removeMeta(root, "readonly")
		}
	}
}

func setType(root *yaml.Node, typ string) {
	if typ == "" {
		removeMeta(root, "type")
		removeKey(root, "type")
		return
	}
	meta := lookup(root, "metadata")
	if meta == nil || lookup(meta, "type") == nil {
		if lookup(root, "type") != nil {
			setString(root, "type", typ, "")
			return
		}
	}
	setString(metadataNode(root), "type", typ, "")
}

// metadataNode returns root's metadata mapping, creating it when absent or null.
func metadataNode(root *yaml.Node) *yaml.Node {
	if i := indexOf(root, "metadata"); i >= 0 {
		v := root.Content[i+1]
		if v.Kind == yaml.MappingNode {
			return v
		}
		fresh := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: v.LineComment}
		root.Content[i+1] = fresh
		return fresh
	}
	fresh := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	root.Content = append(root.Content, scalar("metadata"), fresh)
	return fresh
}

// removeMeta removes metadata.key, and metadata itself if that empties it.
func removeMeta(root *yaml.Node, key string) {
	meta := lookup(root, "metadata")
	if meta == nil || meta.Kind != yaml.MappingNode || indexOf(meta, key) < 0 {
		return
	}
	removeKey(meta, key)
	if len(meta.Content) == 0 && meta.HeadComment == "" && meta.FootComment == "" {
		removeKey(root, "metadata")
	}
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// setString sets key to s, or removes key when s is "". A new key goes
// right after the first key of after that exists; "" in after stands for
// "first in the mapping"; with none of after found it goes last.
func setString(m *yaml.Node, key, s string, after ...string) {
	if s == "" {
		removeKey(m, key)
		return
	}
	setValue(m, key, scalar(s), after...)
}

func setValue(m *yaml.Node, key string, v *yaml.Node, after ...string) {
	if i := indexOf(m, key); i >= 0 {
		old := m.Content[i+1]
		v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
		v.Anchor = old.Anchor // an alias elsewhere may refer to it
		m.Content[i+1] = v
		return
	}
	at := len(m.Content)
	for _, a := range after {
		if a == "" {
			at = 0
			break
		}
		if i := indexOf(m, a); i >= 0 {
			at = i + 2
			break
		}
	}
	m.Content = append(m.Content, nil, nil)
	copy(m.Content[at+2:], m.Content[at:])
	m.Content[at], m.Content[at+1] = scalar(key), v
}

func removeKey(m *yaml.Node, key string) {
	if i := indexOf(m, key); i >= 0 {
		m.Content = append(m.Content[:i], m.Content[i+2:]...)
	}
}

func indexOf(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

func lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	if i := indexOf(m, key); i >= 0 {
		return resolve(m.Content[i+1])
	}
	return nil
}
