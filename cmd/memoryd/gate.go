package main

import (
	"context"
	"fmt"

	"github.com/memoryd/memoryd/internal/facts"
	outgate "github.com/memoryd/memoryd/internal/folder" // "folder" is this package's type of an open folder
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/recall"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
)

// The commands' side of the gate on the way out (package folder, gate.go):
// every road a command serves asks it, per fact.

// gate is the folder's gate, with the confirmations of its state folder.
func (f *folder) gate() *outgate.Gate { return f.mem.Gate() }

// indexHold is what the folder's indexes leave out.
func (f *folder) indexHold() func(*index.Memory) bool {
	return f.gate().Holds(outgate.RoadIndex)
}

// contextHold is indexHold for a command that has only the configured
// memory folder (context): without its state folder, no confirmation
// counts and every planted instruction is held.
func contextHold(e env, dir string) func(*index.Memory) bool {
	sd := ""
	if real, err := state.RealPath(dir); err == nil {
		sd, _ = state.Dir(stateHome(e), real)
	}
	return outgate.NewGate(sd).Holds(outgate.RoadIndex)
}

// recallFact is m as recall may give it, false when the gate holds it.
func recallFact(g *outgate.Gate, m *index.Memory, stale string) (recall.Fact, bool) {
	d := g.Decide(outgate.RoadRecall, m, stale)
	if d.Verdict == outgate.Hold {
		return recall.Fact{}, false
	}
	return recall.Fact{File: m.File, Title: index.TitleOf(d.Title, m.Name, m.File), Description: d.Description, Body: d.Body, Stale: d.Mark}, true
}

// gateHits is hits as `memoryd search` may print them: a fact with a
// secret with its title and description redacted and, for its snippet,
// the reason; a planted instruction with the note that agents do not get it.
func gateHits(f *folder, hits []search.Hit) []search.Hit {
	g := f.gate()
	out := hits[:0]
	for _, h := range hits {
		d, m := g.DecideFile(outgate.RoadSearch, f.dir, h.File, "")
		switch {
		case d.Verdict == outgate.Hold:
			continue
		case d.Verdict == outgate.Redact:
			h.Title, h.Description, h.Snippet = index.TitleOf(d.Title, m.Name, m.File), d.Description, d.Reason
		case d.Mark != "" && !m.Superseded():
			h.Snippet = "(" + d.Mark + ") " + h.Snippet
		}
		out = append(out, h)
	}
	f.txn().KeepVerdicts()
	return out
}

// shownFact is the text of m as `memoryd show` prints it, and note, what
// the gate says of it when it redacts it or holds it from agents.
func shownFact(f *folder, m *index.Memory, data []byte) (note string, text []byte) {
	d := f.gate().Decide(outgate.RoadSearch, m, "")
	switch {
	case d.Verdict == outgate.Redact:
		return d.Reason, []byte(d.Text)
	case d.Mark != "" && !m.Superseded():
		return d.Mark, data
	}
	return "", data
}

// compactionHold and extractionHold are what the folder's compaction and
// extraction prompts leave out.
func (f *folder) compactionHold() func(*index.Memory) bool {
	return f.gate().Holds(outgate.RoadCompaction)
}

func (f *folder) extractionHold() func(*index.Memory) bool {
	return f.gate().Holds(outgate.RoadExtraction)
}

// heldFacts names the facts of snap the gate holds from agents as planted
// instructions, with what the rule saw (doctor's "held from agents").
func (f *folder) heldFacts(snap index.Snapshot) []string {
	var out []string
	for _, h := range f.gate().Planted(snap) {
		out = append(out, fmt.Sprintf("%s is held from agents: %s; read it (memoryd show %s), then let it out with memoryd check --confirm %s, or remove it with memoryd forget %s",
			h.File, h.Reason, h.Name, h.Name, h.Name))
	}
	return out
}

// heldProblems is heldFacts of the folder as it is, for status.
func heldProblems(f *folder) []string {
	snap, err := index.Scan(f.dir)
	if err != nil {
		return nil // the folder's own problems are reported elsewhere
	}
	return f.heldFacts(snap)
}

// confirmPlanted lets out to agents the fact name when the gate holds it as
// a planted instruction (folder.ConfirmPlanted). more reports whether the
// fact also cites files, whose versions check --confirm records next; a
// fact the gate does not hold is more, for the cites' confirmation to
// answer.
func confirmPlanted(ctx context.Context, e env, f *folder, name string) (more bool, err error) {
	snap, err := index.Scan(f.dir)
	if err != nil {
		return false, err
	}
	m, err := facts.Find(snap, name)
	if err != nil || f.gate().PlantedHeld(m) == "" {
		return true, nil
	}
	if err := f.txn().ConfirmPlanted(ctx, m, "cli"); err != nil {
		return false, err
	}
	fmt.Fprintf(e.stdout, "confirmed %s: agents are given it from now on (an edit of its words holds it again)\n", m.File)
	return len(m.Cites) > 0, nil
}
