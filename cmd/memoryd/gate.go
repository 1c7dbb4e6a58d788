package main

import (
	"context"
	"fmt"

	"github.com/memoryd/memoryd/internal/facts"
	outgate "github.com/memoryd/memoryd/internal/folder" // "folder" is this package's type of an open folder
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/recall"
	"github.com/memoryd/memoryd/internal/search"
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
// memory folder (context), opened without its repository: the gate reads
// the state folder's confirmations and the detectors' verdicts (the
// daemon's gate keeps one for every fact). A folder that cannot be opened
// gets a gate without a state folder: every planted instruction held.
func contextHold(e env, dir string) func(*index.Memory) bool {
	f, err := outgate.Open(outgate.Options{Dir: dir, StateHome: stateHome(e), WithoutRepo: true})
	if err != nil {
		return outgate.NewGate("").Holds(outgate.RoadIndex)
	}
	return f.Gate().Holds(outgate.RoadIndex)
}

// compactionHold and extractionHold are what the folder's compaction and
// extraction prompts leave out.
func (f *folder) compactionHold() func(*index.Memory) bool {
	return f.gate().Holds(outgate.RoadCompaction)
}

func (f *folder) extractionHold() func(*index.Memory) bool {
	return f.gate().Holds(outgate.RoadExtraction)
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

// gateHits is hits as `memoryd search` may print them (Gate.SearchHits).
func gateHits(f *folder, hits []search.Hit) []search.Hit {
	hits = f.gate().SearchHits(f.dir, hits)
	f.txn().KeepVerdicts() // the next search skips the detectors on these
	return hits
}

// recallFacts reads the hits that skip does not leave out, as recall's
// candidates through the gate (recall.FromHits).
func recallFacts(f *folder, hits []search.Hit, skip func(string) bool, cwd string) []recall.Fact {
	cands := recall.FromHits(f.gate(), f.dir, hits, skip, cwd)
	f.txn().KeepVerdicts() // the next recall skips the detectors on these
	return cands
}
