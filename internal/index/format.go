package index

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Format returns the file's bytes: "---", the frontmatter, "---", then the
// body with LF line endings and a final newline.
//
// When no known field (Name, Title, Description, Type, Readonly, Project,
// Updated, Pinned, Sources, Cites) differs from what Parse read, the frontmatter is written exactly as read (with LF
// line endings), so formatting an unchanged memory never reflows it and a
// name derived from the file name is not added. Otherwise the frontmatter is
// re-encoded from its YAML tree with two-space indentation: keys memoryd does
// not know, in the frontmatter and in metadata, are kept with their comments,
// and only the changed known keys are set, added or (for a zero value)
// removed. A changed Type is written where the file had it (metadata.type,
// else a top-level type), else to metadata.type; Project, Updated and Pinned
// go to metadata.project, metadata.updated (a date unquoted) and
// metadata.pinned. A new memory (NewMemory or a literal) gets name, title,
// description and metadata.type, project, updated, pinned, readonly in that
// order; a key added to an existing metadata goes after the known keys
// before it in that order, else first.
//
// Format is stable: Format(Parse(Format(m))) == Format(m). It does not
// change m and is safe to call from several goroutines.
func (m *Memory) Format() []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	if cur := m.fields(); m.parsed && cur == m.orig && len(m.absorbed) == 0 {
		b.WriteString(m.front)
	} else {
		doc := m.document()
		m.syncTo(doc.Content[0], cur)
		(&editor{root: doc.Content[0]}).addAbsorbed(m.absorbed)
		if !isEmptyDoc(doc) {
			if err := encodeYAML(&b, doc); err != nil {
				// Unreachable for nodes decoded from text yaml.v3
				// accepted; keep the known fields rather than fail.
				b.Truncate(len("---\n"))
				fresh := newDocument()
				(&Memory{}).syncTo(fresh.Content[0], cur)
				_ = encodeYAML(&b, fresh)
			}
		}
	}
	b.WriteString("---\n")
	body := toLF(m.Body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		// A CR at the end would pair with the added LF.
		body = strings.TrimRight(body, "\r") + "\n"
	}
	b.WriteString(body)
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
	if m.parsed {
		if doc, err := decodeFrontmatter(m.File, m.front); err == nil {
			return doc
		}
	}
	return newDocument()
}

// syncTo writes the fields of cur that differ from what Parse read into root.
func (m *Memory) syncTo(root *yaml.Node, cur fields) {
	e := &editor{root: root}
	o := m.orig
	if cur.name != o.name {
		e.setString(root, "name", cur.name, "")
	}
	if cur.title != o.title {
		e.setString(root, "title", cur.title, "name", "")
	}
	if cur.description != o.description {
		e.setString(root, "description", cur.description, "title", "name", "")
	}
	if cur.typ != o.typ {
		e.setType(cur.typ)
	}
	if cur.project != o.project {
		e.setMeta("project", stringNode(cur.project), "type")
	}
	if cur.updated != o.updated {
		e.setMeta("updated", dateNode(cur.updated), "project", "type")
	}
	if cur.sources != o.sources {
		if cur.sources == "" {
			e.removeMeta("source")
		} else {
			e.setMeta("source", sourcesNode(decodeSources(cur.sources)), "readonly", "pinned", "updated", "project", "type")
		}
	}
	if cur.cites != o.cites {
		if cur.cites == "" {
			e.removeMeta("cites")
		} else {
			e.setMeta("cites", citesNode(decodeCites(cur.cites)), "source", "readonly", "pinned", "updated", "project", "type")
		}
	}
	if cur.supersededBy != o.supersededBy {
		e.setMeta("superseded_by", stringNode(cur.supersededBy), "cites", "source", "readonly", "pinned", "updated", "project", "type")
	}
	if cur.supersededAt != o.supersededAt {
		e.setMeta("superseded_at", dateNode(cur.supersededAt), "superseded_by", "cites", "source", "readonly", "pinned", "updated", "project", "type")
	}
	if cur.pinned != o.pinned {
		e.setMeta("pinned", boolNode(cur.pinned), "updated", "project", "type")
	}
	if cur.readonly != o.readonly {
		e.setMeta("readonly", boolNode(cur.readonly), "pinned", "updated", "project", "type")
	}
	for _, old := range e.detached {
		if old.Anchor != "" {
			expandAliases(root, old)
		}
	}
}

// editor changes a frontmatter tree and remembers the nodes it took out,
// whose aliases must then be expanded.
type editor struct {
	root     *yaml.Node
	detached []*yaml.Node
}

func (e *editor) setType(typ string) {
	if typ == "" {
		e.removeMeta("type")
		e.removeKey(e.root, "type")
		return
	}
	if meta := e.metadata(false); (meta == nil || indexOf(meta, "type") < 0) && indexOf(e.root, "type") >= 0 {
		e.setString(e.root, "type", typ, "")
		return
	}
	e.setString(e.metadata(true), "type", typ, "")
}

// metadata returns the root's metadata mapping, owned by this key (an alias
// to a mapping is replaced by a copy). With create, a missing or null
// metadata becomes an empty mapping; without, it is nil.
func (e *editor) metadata(create bool) *yaml.Node {
	i := indexOf(e.root, "metadata")
	if i < 0 {
		if !create {
			return nil
		}
		fresh := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		e.root.Content = append(e.root.Content, scalar("metadata"), fresh)
		return fresh
	}
	v := e.root.Content[i+1]
	switch {
	case v.Kind == yaml.MappingNode:
		return v
	case v.Kind == yaml.AliasNode && v.Alias != nil && v.Alias.Kind == yaml.MappingNode:
		own := *v.Alias
		own.Anchor, own.Content = "", slices.Clone(own.Content)
		own.HeadComment, own.LineComment, own.FootComment = v.HeadComment, v.LineComment, v.FootComment
		e.root.Content[i+1] = &own
		return &own
	case !create:
		return nil
	}
	fresh := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: v.LineComment}
	e.root.Content[i+1] = fresh
	e.detached = append(e.detached, v)
	return fresh
}

// setMeta sets metadata.key to v, creating metadata when needed, or removes
// it (and an emptied metadata) when v is nil. A new key goes right after the
// first of after that exists, else first.
func (e *editor) setMeta(key string, v *yaml.Node, after ...string) {
	if v == nil {
		e.removeMeta(key)
		return
	}
	e.setValue(e.metadata(true), key, v, append(after, "")...)
}

// stringNode is s as a string value, or nil for "".
func stringNode(s string) *yaml.Node {
	if s == "" {
		return nil
	}
	return scalar(s)
}

// dateNode is like stringNode, but a date ("2025-03-07", "2025-3-7") is
// written plain, as people write it, rather than quoted as a string.
func dateNode(s string) *yaml.Node {
	if s == "" {
		return nil
	}
	if _, err := time.Parse("2006-1-2", s); err == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: s}
	}
	return scalar(s)
}

// boolNode is "true", or nil for false.
func boolNode(b bool) *yaml.Node {
	if !b {
		return nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}
}

// removeMeta removes metadata.key, and metadata itself if that empties it.
func (e *editor) removeMeta(key string) {
	meta := e.metadata(false)
	if meta == nil || indexOf(meta, key) < 0 {
		return
	}
	e.removeKey(meta, key)
	if len(meta.Content) == 0 && meta.HeadComment == "" && meta.FootComment == "" {
		e.removeKey(e.root, "metadata")
	}
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// setString sets key to s, or removes key when s is "". A new key goes
// right after the first key of after that exists; "" in after stands for
// "first in the mapping"; with none of after found it goes last.
func (e *editor) setString(m *yaml.Node, key, s string, after ...string) {
	if s == "" {
		e.removeKey(m, key)
		return
	}
	e.setValue(m, key, scalar(s), after...)
}

func (e *editor) setValue(m *yaml.Node, key string, v *yaml.Node, after ...string) {
	if i := indexOf(m, key); i >= 0 {
		old := m.Content[i+1]
		v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
		if block := v.Kind != yaml.ScalarNode && v.Style&yaml.FlowStyle == 0; block && m.Content[i].LineComment == "" {
			// "key: value # note" becoming a block list: yaml.v3 would
			// write the note after the list, on the next key's line.
			m.Content[i].LineComment, v.LineComment = v.LineComment, ""
		}
		m.Content[i+1] = v
		e.detached = append(e.detached, old)
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
	m.Content = slices.Insert(m.Content, at, scalar(key), v)
}

func (e *editor) removeKey(m *yaml.Node, key string) {
	if i := indexOf(m, key); i >= 0 {
		e.detached = append(e.detached, m.Content[i+1])
		m.Content = slices.Delete(m.Content, i, i+2)
	}
}

// expandAliases replaces every alias of old below n by a copy of old, so
// that old can leave the tree without leaving aliases to nothing.
func expandAliases(n, old *yaml.Node) {
	for _, c := range n.Content {
		if c.Kind == yaml.AliasNode && c.Alias == old {
			*c = *old
			c.Anchor = ""
			continue
		}
		expandAliases(c, old)
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
