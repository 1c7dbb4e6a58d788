package index

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Cite is one file a fact rests on (metadata.cites): a path relative to
// the root of the fact's project, slash-separated, the git blob hash of the
// file when the fact was written or last confirmed, and optionally a symbol
// in it. In the file it is one string, "src/app.go@<blob>#Symbol"; package
// cite computes the hashes and checks them.
type Cite struct {
	Path   string // relative to the project's root, slash-separated
	Blob   string // the git blob hash (hex) recorded; "" when none was
	Symbol string // optional: the symbol in the file the fact is about
}

// String is the cite as the file holds it: "path@blob#symbol", the blob and
// the symbol left out when empty.
func (c Cite) String() string {
	s := c.Path
	if c.Blob != "" {
		s += "@" + c.Blob
	}
	if c.Symbol != "" {
		s += "#" + c.Symbol
	}
	return s
}

// ParseCite reads one cite as String writes it. A string without a
// well-formed "@<hex blob>" is a path with no recorded blob (a person may
// write just the path); a "#symbol" after the path or the blob is the
// symbol.
func ParseCite(s string) Cite {
	s = strings.TrimSpace(s)
	var c Cite
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		blob, sym, _ := strings.Cut(s[at+1:], "#")
		if isHexBlob(blob) {
			return Cite{Path: s[:at], Blob: blob, Symbol: sym}
		}
	}
	c.Path = s
	if h := strings.LastIndexByte(s, '#'); h > 0 && !strings.Contains(s[h:], "/") {
		c.Path, c.Symbol = s[:h], s[h+1:]
	}
	return c
}

// isHexBlob reports whether s is a git object name: 40 (SHA-1) or 64
// (SHA-256) lower-case hex digits.
func isHexBlob(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// encodeCites is a comparable form of a list of cites, for telling whether
// Format must write metadata.cites.
func encodeCites(list []Cite) string {
	var b strings.Builder
	for _, c := range list {
		b.WriteString(c.String())
		b.WriteByte(0)
	}
	return b.String()
}

// decodeCites is the inverse of encodeCites.
func decodeCites(enc string) []Cite {
	var out []Cite
	for _, s := range strings.Split(enc, "\x00") {
		if s != "" {
			out = append(out, ParseCite(s))
		}
	}
	return out
}

// readCites reads metadata.cites: a list of strings, or one string.
// Anything else (a mapping, a list of lists) reads as no cites; the file
// stays valid.
func readCites(v *yaml.Node) []Cite {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	var out []Cite
	for _, it := range items {
		it = resolve(it)
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" || strings.TrimSpace(it.Value) == "" {
			continue
		}
		out = append(out, ParseCite(it.Value))
	}
	return out
}

// citesNode is metadata.cites for list: a block list of strings.
func citesNode(list []Cite) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, c := range list {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: c.String()})
	}
	return seq
}
