package recall

import (
	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
)

// Gated is m as recall may give it, marked stale as stale says; false
// when the gate g holds it (a secret, a planted instruction).
func Gated(g *folder.Gate, m *index.Memory, stale string) (Fact, bool) {
	d := g.Decide(folder.RoadRecall, m, stale)
	if d.Verdict == folder.Hold {
		return Fact{}, false
	}
	return Fact{File: m.File, Title: index.TitleOf(d.Title, m.Name, m.File), Description: d.Description, Body: d.Body, Stale: d.Mark}, true
}

// FromHits reads the hits in the memory folder dir that skip does not
// leave out, as recall's candidates through the gate g, each marked when
// its cited files (relative to cwd's project) changed.
func FromHits(g *folder.Gate, dir string, hits []search.Hit, skip func(string) bool, cwd string) []Fact {
	var cands []Fact
	chk := cite.NewChecker(cwd)
	for _, h := range hits {
		if skip(h.File) {
			continue
		}
		data, err := index.ReadPlain(dir, h.File)
		if err != nil {
			continue // gone since the index saw it
		}
		m, err := index.Parse(h.File, data)
		if err != nil {
			continue
		}
		// The gate on the way out: no secret, no planted instruction.
		if fact, ok := Gated(g, m, cite.Marker(chk.Check(m).Changes)); ok {
			cands = append(cands, fact)
		}
	}
	return cands
}
