package folder

import (
	"fmt"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/verdicts"
)

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

// HeldNotes names the facts of snap the gate holds from agents as planted
// instructions, with what the rule saw and the commands that read, let
// out or remove each (doctor's "held from agents").
func (g *Gate) HeldNotes(snap index.Snapshot) []string {
	var out []string
	for _, h := range g.Planted(snap) {
		out = append(out, fmt.Sprintf("%s is held from agents: %s; read it (memoryd show %s), then let it out with memoryd check --confirm %s, or remove it with memoryd forget %s",
			h.File, h.Reason, h.Name, h.Name, h.Name))
	}
	return out
}

// HeldIn is HeldNotes of the memory folder dir as it is, for status; an
// unreadable folder holds nothing here (its problems are reported
// elsewhere).
func (g *Gate) HeldIn(dir string) []string {
	snap, err := index.Scan(dir)
	if err != nil {
		return nil
	}
	return g.HeldNotes(snap)
}

// SearchHits is hits as `memoryd search` may print them from the memory
// folder dir: a fact with a secret with its title and description
// redacted and, for its snippet, the reason; a planted instruction with
// the note that agents do not get it; a held fact left out.
func (g *Gate) SearchHits(dir string, hits []search.Hit) []search.Hit {
	out := hits[:0]
	for _, h := range hits {
		d, m := g.DecideFile(RoadSearch, dir, h.File, "")
		switch {
		case d.Verdict == Hold:
			continue
		case d.Verdict == Redact:
			h.Title, h.Description, h.Snippet = index.TitleOf(d.Title, m.Name, m.File), d.Description, d.Reason
		case d.Mark != "" && !m.Superseded():
			h.Snippet = "(" + d.Mark + ") " + h.Snippet
		}
		out = append(out, h)
	}
	return out
}

// Shown is the text of m as `memoryd show` and `why` print it, and note,
// what the gate says of it when it redacts it or holds it from agents.
func (g *Gate) Shown(m *index.Memory, data []byte) (note string, text []byte) {
	d := g.Decide(RoadSearch, m, "")
	switch {
	case d.Verdict == Redact:
		return d.Reason, []byte(d.Text)
	case d.Mark != "" && !m.Superseded():
		return d.Mark, data
	}
	return "", data
}

// Listed is list as `memoryd list` may print it: a fact whose title or
// description holds a secret is a copy with the secret redacted, as its
// index line shows it (the detector is skipped where the verdicts hold
// those exact words as clean). An agent that runs `memoryd list` in a
// shell reads what a person would.
func (g *Gate) Listed(list []*index.Memory) []*index.Memory {
	out := make([]*index.Memory, len(list))
	for i, m := range list {
		out[i] = m
		if title, description, clean := g.lineWords(m); !clean {
			c := *m
			c.Title, c.Description = title, description
			out[i] = &c
		}
	}
	return out
}

// lineWords is m's title and description with their secrets redacted,
// and whether there was none.
func (g *Gate) lineWords(m *index.Memory) (title, description string, clean bool) {
	key := verdicts.KeyOf(verdicts.IndexLine, m.Title, m.Description)
	if g.verdicts.Clean(key) {
		return m.Title, m.Description, true
	}
	title, n := secrets.Redact(m.Title)
	description, n2 := secrets.Redact(m.Description)
	if n+n2 == 0 {
		g.verdicts.Add(key)
		return m.Title, m.Description, true
	}
	return title, description, false
}
