package index

import "go.yaml.in/yaml/v3"

// Absorb adds to m — a copy about to be written in place of others, as a
// compaction merge writes one file for several — the frontmatter keys of
// others that memoryd does not read and m does not have, at the top and
// under metadata, with their comments: a merge keeps what a person or
// another tool wrote in any of its files. A key m has keeps m's value, and
// of two others with one key, the first one's. Known keys (name, title,
// description, type, metadata's type, readonly, pinned, project, updated,
// source, cites) are the caller's to set.
func (m *Memory) Absorb(others ...*Memory) {
	taken := make(map[string]bool)
	for _, a := range m.absorbed {
		taken[a.path()] = true
	}
	for _, o := range others {
		if o == m || !o.parsed {
			continue
		}
		oroot := o.document().Content[0]
		for i := 0; i+1 < len(oroot.Content); i += 2 {
			k, v := oroot.Content[i], oroot.Content[i+1]
			switch {
			case k.Kind != yaml.ScalarNode:
			case k.Value == "metadata":
				meta := resolve(v)
				if meta.Kind != yaml.MappingNode {
					continue
				}
				for j := 0; j+1 < len(meta.Content); j += 2 {
					if mk := meta.Content[j]; mk.Kind == yaml.ScalarNode && !knownMetaKey(mk.Value) {
						m.absorb(taken, absorbedKey{true, ownCopy(mk), ownCopy(meta.Content[j+1])})
					}
				}
			case !knownTopKey(k.Value):
				m.absorb(taken, absorbedKey{false, ownCopy(k), ownCopy(v)})
			}
		}
	}
}

// absorbedKey is a key of another file for Format to add when m lacks it.
type absorbedKey struct {
	meta     bool // under metadata, else at the top
	key, val *yaml.Node
}

func (a absorbedKey) path() string {
	if a.meta {
		return "metadata." + a.key.Value
	}
	return a.key.Value
}

func (m *Memory) absorb(taken map[string]bool, a absorbedKey) {
	if !taken[a.path()] {
		taken[a.path()] = true
		m.absorbed = append(m.absorbed, a)
	}
}

// addAbsorbed adds to root the absorbed keys it does not have.
func (e *editor) addAbsorbed(keys []absorbedKey) {
	for _, a := range keys {
		if !a.meta {
			if indexOf(e.root, a.key.Value) < 0 {
				e.root.Content = append(e.root.Content, a.key, a.val)
			}
			continue
		}
		if meta := e.metadata(false); meta != nil && indexOf(meta, a.key.Value) >= 0 {
			continue
		}
		meta := e.metadata(true)
		meta.Content = append(meta.Content, a.key, a.val)
	}
}

func knownTopKey(k string) bool {
	switch k {
	case "name", "title", "description", "type", "metadata":
		return true
	}
	return false
}

func knownMetaKey(k string) bool {
	switch k {
	case "type", "readonly", "pinned", "project", "updated", "source", "cites":
		return true
	}
	return false
}

// ownCopy copies n deeply, with every alias replaced by a copy of what it
// stands for and no anchors, so it can go into another file's tree.
func ownCopy(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		c := ownCopy(n.Alias)
		c.HeadComment, c.LineComment, c.FootComment = n.HeadComment, n.LineComment, n.FootComment
		return c
	}
	c := *n
	c.Anchor, c.Alias = "", nil
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = ownCopy(k)
	}
	return &c
}
