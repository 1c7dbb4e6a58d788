package folder

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/verdicts"
)

// The gate on the way out. Memory leaves the folder's files on many roads;
// every one asks Gate.Decide, per fact, whether to give it, give it with
// the lines that hold a secret replaced by [REDACTED], or hold it with a
// reason a person can read. The rules, road by road, are the table in
// decide; gate_test.go tests that table whole.

// Road is one way memory leaves the folder.
type Road int

const (
	// RoadIndex is what an agent loads at session start: MEMORY.md,
	// MEMORY.<slug>.md, the Codex AGENTS.md block, `memoryd context`.
	RoadIndex Road = iota
	// RoadRecall is the per-prompt injection (`memoryd recall`).
	RoadRecall
	// RoadSearch is `memoryd search`, `list` and `show`: a person's
	// commands, which agents run too.
	RoadSearch
	// RoadMCP is the MCP tools memory_search and memory_read.
	RoadMCP
	// RoadCompaction is the facts put into a compaction prompt.
	RoadCompaction
	// RoadExtraction is the existing facts put into an extraction prompt.
	RoadExtraction
	// RoadSync is what sync pushes to a remote: the commits, which the
	// commit screen (package gitstore's Screen) keeps secrets out of.
	RoadSync
)

// Roads is every road, for tables and reports.
var Roads = []Road{RoadIndex, RoadRecall, RoadSearch, RoadMCP, RoadCompaction, RoadExtraction, RoadSync}

func (r Road) String() string {
	return [...]string{"index", "recall", "search", "mcp", "compaction", "extraction", "sync"}[r]
}

// toAgent reports whether r hands facts to an agent or a model, which a
// planted instruction could steer.
func (r Road) toAgent() bool { return r != RoadSearch && r != RoadSync }

// Verdict is what the gate does with one fact on one road.
type Verdict int

const (
	Give   Verdict = iota // as it is (Decision.Mark may add a note)
	Redact                // with the lines that hold a secret replaced by [REDACTED]
	Hold                  // not at all; Decision.Reason says why
)

func (v Verdict) String() string { return [...]string{"give", "redact", "hold"}[v] }

// Decision is the gate's answer for one fact on one road.
type Decision struct {
	Verdict Verdict
	// Title, Description, Body and Text are what may go out: the fact's
	// own with Give, with the secret lines [REDACTED] with Redact, empty
	// with Hold. Text is the whole file as memory_read and show print it.
	Title, Description, Body, Text string
	// Mark is a note that goes out with the fact: that it may be stale,
	// that it was superseded, that agents do not get it. "" for none.
	Mark string
	// Reason is why the fact was held or redacted, in a person's words
	// ("held: a secret (password) on line 5 of x.md, see `memoryd status`").
	Reason string
}

// Gate decides what leaves one memory folder. It is safe for concurrent
// use. Its one piece of state is the confirmations a person recorded for
// planted instructions (see Confirm), read again when their file changes.
type Gate struct {
	confirmed *confirmations
	mu        sync.Mutex
	planted   map[string]string // fact hash → PlantedInstruction of its text
	verdicts  *verdicts.Set     // texts found clean by any process; nil: none
	warmed    map[string]bool   // fact hashes Warm went through
}

// NewGate returns the gate of the memory folder whose state folder is
// stateDir ("" : no confirmations, every planted instruction is held).
func NewGate(stateDir string) *Gate {
	return &Gate{confirmed: &confirmations{dir: stateDir}, planted: map[string]string{}, warmed: map[string]bool{}}
}

// Warm runs the gate's detectors over the facts of snap it has not gone
// through yet and saves their clean verdicts, so that a reader (`memoryd
// recall`, `search`, an MCP server) finds every current fact's verdict
// and never runs a detector, nor parses the secret rule set, for a fact
// it gives. The daemon calls it after each index sync, off its loop;
// after a pass over every fact, the screen's verdicts of texts gone from
// the folder are dropped.
func (g *Gate) Warm(ctx context.Context, snap index.Snapshot) error {
	if g.verdicts == nil {
		return nil
	}
	for _, m := range snap.Memories {
		if ctx.Err() != nil {
			return g.verdicts.Save()
		}
		g.mu.Lock()
		done := g.warmed[m.Hash]
		g.mu.Unlock()
		if done && m.Hash != "" {
			continue
		}
		g.Decide(RoadRecall, m, "")
		g.mu.Lock()
		if len(g.warmed) > 1<<16 {
			clear(g.warmed)
		}
		g.warmed[m.Hash] = true
		g.mu.Unlock()
	}
	return g.verdicts.Save(verdicts.Screen)
}

// Decide is the gate: what of m may leave on road. stale is the note of a
// fact whose cited files changed (cite.Marker), "" for none; a stale fact
// goes out with it as Mark.
func (g *Gate) Decide(road Road, m *index.Memory, stale string) Decision {
	d := Decision{Title: m.Title, Description: m.Description, Body: m.Body, Mark: stale}
	if m.Superseded() {
		if road == RoadSearch || road == RoadMCP || road == RoadSync {
			// Read by name or asked for every version: history, marked.
			d.Text = string(m.Format())
			d.Mark = joinMarks("superseded by "+m.SupersededBy+": no longer current", stale)
			return d
		}
		return held("superseded by " + m.SupersededBy)
	}
	if why := g.PlantedHeld(m); why != "" {
		if road.toAgent() {
			return held(fmt.Sprintf("held: %s; a person lets it out with `memoryd check --confirm %s`", why, m.Name))
		}
		d.Mark = joinMarks("held from agents: "+why+" (memoryd check --confirm "+m.Name+" lets it out)", stale)
	}
	text := secrets.FileText(m.Format())
	found := g.screen(text)
	d.Text = text
	if len(found) == 0 {
		return d
	}
	reason := secretReason(m.File, found)
	if road == RoadCompaction || road == RoadExtraction || road == RoadSync {
		// A model that rewrote a fact with [REDACTED] in it would lose
		// what the line said; a commit with the secret must not happen.
		return held(reason)
	}
	return redacted(d, m.File, text, found, reason)
}

// Holds is Decide for the roads that take a fact whole or not at all (the
// index builder, the compaction and extraction prompts): whether road
// holds m. Redacted facts are given: the index redacts titles and
// descriptions itself.
func (g *Gate) Holds(road Road) func(m *index.Memory) bool {
	return func(m *index.Memory) bool {
		if road == RoadIndex {
			// Only the planted-instruction rule and supersession hold a
			// fact out of an index; screening every file on every index
			// write would cost more than the index.
			return m.Superseded() || g.PlantedHeld(m) != ""
		}
		return g.Decide(road, m, "").Verdict == Hold
	}
}

func held(reason string) Decision { return Decision{Verdict: Hold, Reason: reason} }

func joinMarks(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// secretReason names the first secret the screen found, as status does.
func secretReason(file string, found []secrets.Finding) string {
	return fmt.Sprintf("held: a secret (%s) on line %d of %s, see `memoryd status`", found[0].Kind, found[0].Line, file)
}

// redacted is d with every line of text that holds one of found replaced
// by [REDACTED], and the fields read back from that text.
func redacted(d Decision, file, text string, found []secrets.Finding, reason string) Decision {
	lines := strings.Split(text, "\n")
	for _, f := range found {
		last := f.Line + strings.Count(text[f.Start:f.End], "\n")
		for n := f.Line; n <= last && n <= len(lines); n++ {
			lines[n-1] = secrets.Redacted
		}
	}
	d.Verdict, d.Reason = Redact, reason
	d.Text = strings.Join(lines, "\n")
	m, err := index.Parse(file, []byte(d.Text))
	if err != nil {
		// The frontmatter lost its shape: give nothing of it.
		d.Title, d.Description, d.Body = "", secrets.Redacted, secrets.Redacted
		return d
	}
	d.Title, d.Description, d.Body = m.Title, m.Description, m.Body
	return d
}

// PlantedHeld is why m is held from agents as a planted instruction a
// person has not confirmed, or "".
func (g *Gate) PlantedHeld(m *index.Memory) string {
	why := g.plantedOf(m)
	if why == "" || g.confirmed.has(m.File, ContentHash(m)) {
		return ""
	}
	return why
}

// plantedOf is PlantedInstruction of the text m gives, remembered by the
// file's hash: an index is rebuilt far more often than a fact changes.
func (g *Gate) plantedOf(m *index.Memory) string {
	if m.Hash == "" {
		return PlantedInstruction(plantedText(m))
	}
	g.mu.Lock()
	why, ok := g.planted[m.Hash]
	g.mu.Unlock()
	if ok {
		return why
	}
	why = g.plantedScreened(m)
	g.mu.Lock()
	if len(g.planted) > 1<<14 {
		clear(g.planted)
	}
	g.planted[m.Hash] = why
	g.mu.Unlock()
	return why
}

// screen is secrets.Screen of text, skipped when the gate's verdicts
// hold that exact text as found clean: a recall of clean facts then never
// even parses the detector's rule set.
func (g *Gate) screen(text string) []secrets.Finding {
	if g.verdicts == nil {
		return secrets.Screen(text)
	}
	key := verdicts.KeyOf(verdicts.Screen, text)
	if g.verdicts.Clean(key) {
		return nil
	}
	found := secrets.Screen(text)
	if len(found) == 0 {
		g.verdicts.Add(key)
	}
	return found
}

// plantedScreened is PlantedInstruction of m's text, skipped when the
// gate's verdicts holds that exact text as found clean.
func (g *Gate) plantedScreened(m *index.Memory) string {
	if g.verdicts == nil {
		return PlantedInstruction(plantedText(m))
	}
	key := verdicts.KeyOf(verdicts.Planted, m.Name, m.Title, m.Description, m.Body)
	if g.verdicts.Clean(key) {
		return ""
	}
	why := PlantedInstruction(plantedText(m))
	if why == "" {
		g.verdicts.Add(key)
	}
	return why
}

// plantedText is the text of m an agent would read and obey.
func plantedText(m *index.Memory) string {
	return m.Name + "\n" + m.Title + "\n" + m.Description + "\n" + m.Body
}

// DecideFile is Decide for the fact in file of the memory folder dir, read
// now (a search hit names a file). A file that cannot be read or parsed is
// held: the gate fails closed. m is nil then.
func (g *Gate) DecideFile(road Road, dir, file, stale string) (Decision, *index.Memory) {
	data, err := index.ReadPlain(dir, file)
	if err != nil {
		return held(fmt.Sprintf("held: %s cannot be read (%v)", file, err)), nil
	}
	m, err := index.Parse(file, data)
	if err != nil {
		return held(fmt.Sprintf("held: %s cannot be read as a fact (%v)", file, err)), nil
	}
	return g.Decide(road, m, stale), m
}
