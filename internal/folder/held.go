package folder

import "github.com/memoryd/memoryd/internal/index"

// HeldFact is a fact the gate holds from agents until a person confirms it.
type HeldFact struct {
	File, Name string
	Reason     string // what the planted-instruction rule saw
}

// Planted lists the facts of snap that the gate holds from agents as
// planted instructions nobody confirmed, by file: what status and doctor
// name. Facts held for a secret are named by the commit screen's report.
func (g *Gate) Planted(snap index.Snapshot) []HeldFact {
	var out []HeldFact
	for _, m := range snap.Memories {
		if m.Superseded() || index.InInbox(m.File) {
			continue
		}
		if why := g.PlantedHeld(m); why != "" {
			out = append(out, HeldFact{File: m.File, Name: m.Name, Reason: why})
		}
	}
	return out
}
