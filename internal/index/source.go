package index

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Source is where a fact came from (metadata.source), one entry per origin:
// the extraction of an agent's session, a save through MCP or the command
// line, or each file a compaction merged.
type Source struct {
	Agent    string // opencode, claude-code, codex, mcp: <client>, cli, compaction, import
	Session  string // the agent's session id
	Messages string // the first and last message ids (or times) drawn from, "first..last"
	At       string // when it was written, RFC 3339
	Cwd      string // the session's working directory
	Host     string // the machine's host name
}

// sourceKeys are the keys of a Source in the file, in the order written.
var sourceKeys = []string{"agent", "session", "messages", "at", "cwd", "host"}

func (s *Source) field(key string) *string {
	switch key {
	case "agent":
		return &s.Agent
	case "session":
		return &s.Session
	case "messages":
		return &s.Messages
	case "at":
		return &s.At
	case "cwd":
		return &s.Cwd
	case "host":
		return &s.Host
	}
	return nil
}

// encodeSources is a comparable form of a list of sources, for telling
// whether Format must write metadata.source.
func encodeSources(list []Source) string {
	var b strings.Builder
	for _, s := range list {
		for _, k := range sourceKeys {
			b.WriteString(*s.field(k))
			b.WriteByte(0)
		}
		b.WriteByte(1)
	}
	return b.String()
}

// decodeSources is the inverse of encodeSources.
func decodeSources(enc string) []Source {
	var out []Source
	for _, rec := range strings.Split(enc, "\x01") {
		if rec == "" {
			continue
		}
		vals := strings.Split(rec, "\x00")
		var s Source
		for i, k := range sourceKeys {
			if i < len(vals) {
				*s.field(k) = vals[i]
			}
		}
		out = append(out, s)
	}
	return out
}

// readSources reads metadata.source: a list of mappings, or one mapping; a
// plain value ("source: review") is an origin named by a person. Anything
// else reads as no source; the file stays valid.
func readSources(v *yaml.Node) []Source {
	if v.Kind == yaml.ScalarNode && v.Tag != "!!null" && v.Value != "" {
		return []Source{{Agent: v.Value}} // "source: review", as a person wrote it
	}
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	var out []Source
	for _, it := range items {
		it = resolve(it)
		if it.Kind != yaml.MappingNode {
			continue
		}
		var s Source
		for i := 0; i+1 < len(it.Content); i += 2 {
			if p := s.field(it.Content[i].Value); p != nil {
				if val := resolve(it.Content[i+1]); val.Kind == yaml.ScalarNode && val.Tag != "!!null" {
					*p = val.Value
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// sourcesNode is metadata.source for list: a block list of mappings.
func sourcesNode(list []Source) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range list {
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range sourceKeys {
			if v := *s.field(k); v != "" {
				m.Content = append(m.Content, scalar(k), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
			}
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}
