package extractor

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
)

// maxBody bounds a memory body the model proposes: one fact is a few lines.
const maxBody = 8000

// maxChanges bounds the files one pass writes: an answer with a thousand
// "memories" is not a session's worth of durable facts.
const maxChanges = 20

// Change is one memory file a pass writes (or, in a dry run, would write).
type Change struct {
	File   string   // relative to the memory folder, "<type>-<name>.md"
	Action string   // "create", "update", "supersede" (an old fact marked superseded by by), or "propose" (written to the inbox for review)
	Data   []byte   // the file's new bytes
	prev   string   // for an update, the hash of the file the change was planned on
	scope  string   // the project the model gave: a slug, "global", or "" when it said none
	cites  []string // the paths the model said the fact rests on, unchecked (stamp records those that exist)
	review string   // why the change goes to the inbox instead ("" when it does not)
	by     string   // supersede: the created fact that replaces File
	team   bool     // a create the model marked for the team memory (toTeam)
	// mem is Data parsed, once a step of the pass asked for it (fact);
	// memErr is why Data does not parse.
	mem    *index.Memory
	memErr error
}

// fact is the change's file parsed, once a pass: every step after the plan
// reads it, and stamp, the one step that changes it, keeps it up to date.
func (c *Change) fact() (*index.Memory, error) {
	if c.mem == nil && c.memErr == nil {
		c.mem, c.memErr = index.Parse(c.File, c.Data)
	}
	return c.mem, c.memErr
}

// Rejection is a proposal the gate refused, or one that changed nothing.
type Rejection struct {
	Name   string // the name the model proposed
	Reason string
}

// planner turns proposals into changes against a snapshot of the folder.
type planner struct {
	byFile     map[string]*index.Memory
	byName     map[string][]*index.Memory
	unreadable map[string]bool
	shown      map[string]bool   // files whose body the model saw
	canonBody  map[string]string // canonical body → file holding it (existing and planned)
	canonDesc  map[string]string // canonical description → file
	planned    map[string]bool
	changes    []Change
	rejected   []Rejection
}

func newPlanner(snap index.Snapshot, shown map[string]bool) *planner {
	p := &planner{
		byFile: map[string]*index.Memory{}, byName: map[string][]*index.Memory{},
		unreadable: map[string]bool{}, shown: shown,
		canonBody: map[string]string{}, canonDesc: map[string]string{}, planned: map[string]bool{},
	}
	for _, m := range snap.Memories {
		p.byFile[m.File] = m
		if m.Superseded() {
			continue // history: never a proposal's target, nor a duplicate of one
		}
		p.byName[m.Name] = append(p.byName[m.Name], m)
		p.remember(m.File, m.Description, m.Body)
	}
	for _, u := range snap.Unreadable {
		p.unreadable[u.File] = true
	}
	return p
}

// remember records a file's text for deduplication.
func (p *planner) remember(file, desc, body string) {
	if c := index.Canonical(body); c != "" {
		if _, ok := p.canonBody[c]; !ok {
			p.canonBody[c] = file
		}
	}
	if c := index.Canonical(desc); c != "" {
		if _, ok := p.canonDesc[c]; !ok {
			p.canonDesc[c] = file
		}
	}
}

// plan runs every proposal through the gate, in order.
func plan(props []Proposal, snap index.Snapshot, shown map[string]bool) ([]Change, []Rejection) {
	p := newPlanner(snap, shown)
	for _, prop := range props {
		reason := "more than " + strconv.Itoa(maxChanges) + " memories in one pass"
		if len(p.changes) < maxChanges {
			reason = p.add(prop)
		}
		if reason != "" {
			name := prop.Name
			if name == "" {
				name = index.CleanText(prop.File, false, 200)
			}
			p.rejected = append(p.rejected, Rejection{Name: name, Reason: reason})
		}
	}
	return p.changes, p.rejected
}

// add plans one proposal and returns why it was not, or "".
func (p *planner) add(prop Proposal) string {
	action := strings.ToLower(strings.TrimSpace(prop.Action))
	if action == "" {
		action = "create"
	}
	if action != "create" && action != "update" {
		return "unknown action " + clip(prop.Action, 40)
	}
	typ := strings.ToLower(strings.TrimSpace(prop.Type))
	body := strings.TrimSpace(strings.ReplaceAll(prop.Body, "\r\n", "\n"))
	desc := clip(oneLine(prop.Description), 300)
	if inner, err := index.Parse("proposal.md", []byte(body+"\n")); err == nil && strings.HasPrefix(body, "---") {
		// The model wrote a whole file into "body": take it apart.
		body, desc, typ = strings.TrimSpace(inner.Body), cmpOr(desc, oneLine(inner.Description)), cmpOr(typ, inner.Type)
	}
	if desc == "" {
		desc = firstLine(body)
	}
	switch {
	case body == "":
		return "empty body"
	case len(body) > maxBody:
		return "body too long for one fact"
	}
	if reason := rejectText(prop.Name+"\n"+desc+"\n"+body, body); reason != "" {
		return reason
	}
	name := safeName(prop.Name, typ, desc, body)
	// A fact that tells the agent to run fetched code, turn a check off or
	// send secrets away is saved for a person to look at, never as a fact
	// the agent obeys (and supersedes nothing until it is accepted).
	risk := folder.PlantedInstruction(prop.Name + "\n" + desc + "\n" + body)
	if prop.isTeam() {
		return p.forTeam(action, typ, name, desc, body, prop.Cites, risk)
	}
	if prop.Supersedes != "" && action == "create" && risk == "" {
		return p.superseding(prop, typ, name, desc, body)
	}
	n := len(p.changes)
	var reason string
	if target := p.target(prop, typ, name); target != nil {
		reason = p.update(target, desc, body, prop.Project, prop.Cites)
	} else if !slices.Contains(index.Types, typ) {
		return "unknown type " + clip(prop.Type, 40)
	} else {
		reason = p.create(typ, name, desc, body, prop.Project, prop.Cites, "")
	}
	if reason == "" && len(p.changes) > n {
		p.changes[n].review = risk
	}
	return reason
}

// forTeam plans a fact the model marked for the team memory: always a new
// fact (the team's facts are not the person's to update), whatever the
// person's memory holds; toTeam makes it a proposal.
func (p *planner) forTeam(action, typ, name, desc, body string, cites []string, risk string) string {
	file := typ + "-" + name + ".md"
	switch {
	case action != "create":
		return "a team fact is only proposed, never updated by extraction"
	case !slices.Contains(index.Types, typ) || typ == "user":
		return "not a team fact's type: " + clip(typ, 40)
	case !index.IsMemory(file):
		return "not a memory file name: " + file
	case p.planned[file]:
		return "proposed twice: " + file
	}
	m := index.NewMemory(typ, name, desc, body)
	p.planned[file] = true
	p.changes = append(p.changes, Change{File: file, Action: "create", Data: m.Format(), cites: cites, team: true, review: risk})
	return ""
}

// superseding plans a created fact that supersedes an existing one: the
// new file, and the old one marked metadata.superseded_by (kept, out of
// every index). When the old one cannot be superseded (missing, readonly,
// already superseded, in a subfolder, of another project, already changed
// by this pass) the proposal is refused whole: the old fact stays current.
func (p *planner) superseding(prop Proposal, typ, name, desc, body string) string {
	old := p.byFile[strings.TrimSpace(prop.Supersedes)]
	if old == nil {
		if ms := p.byName[strings.TrimSuffix(strings.TrimSpace(prop.Supersedes), ".md")]; len(ms) == 1 {
			old = ms[0]
		}
	}
	file := typ + "-" + name + ".md"
	switch {
	case old == nil:
		return "supersedes " + clip(prop.Supersedes, 80) + ", which is not a memory"
	case old.Readonly:
		return old.File + " is readonly"
	case old.Superseded():
		return old.File + " is already superseded by " + old.SupersededBy
	case strings.Contains(old.File, "/"):
		return old.File + " is in a subfolder; memoryd changes only top-level files"
	case p.planned[old.File]:
		return "proposed twice: " + old.File
	case old.File == file:
		return file + " cannot supersede itself"
	case !slices.Contains(index.Types, typ):
		return "unknown type " + clip(prop.Type, 40)
	case p.byFile[file] != nil:
		return file + " exists; name the new fact otherwise"
	}
	if reason := p.create(typ, name, desc, body, prop.Project, prop.Cites, old.File); reason != "" {
		return reason
	}
	c := *old
	c.SupersededBy, c.SupersededAt = file, time.Now().Format(time.DateOnly)
	p.planned[old.File] = true
	p.changes = append(p.changes, Change{File: old.File, Action: "supersede", Data: c.Format(), prev: old.Hash, by: file})
	return ""
}

// target is the existing memory a proposal is about: the file it names, the
// file its type and name give, or the only memory with that name. A create
// of an existing file is an update of it.
func (p *planner) target(prop Proposal, typ, name string) *index.Memory {
	if m := p.byFile[strings.TrimSpace(prop.File)]; m != nil {
		return m
	}
	if m := p.byFile[typ+"-"+name+".md"]; m != nil {
		return m
	}
	if ms := p.byName[name]; len(ms) == 1 {
		return ms[0]
	}
	return nil
}

// create plans a new fact; except is a file its text may repeat (the fact
// it supersedes).
func (p *planner) create(typ, name, desc, body, scope string, cites []string, except string) string {
	file := typ + "-" + name + ".md"
	switch {
	case !index.IsMemory(file):
		return "not a memory file name: " + file
	case p.unreadable[file]:
		return file + " exists but could not be read"
	case p.planned[file]:
		return "proposed twice: " + file
	}
	if dup := p.duplicate("", desc, body); dup != "" && dup != except {
		return "duplicate of " + dup
	}
	m := index.NewMemory(typ, name, desc, body)
	p.accept(Change{File: file, Action: "create", Data: m.Format(), scope: scope, cites: cites}, desc, body)
	return ""
}

// update rewrites an existing memory's description and body, keeping every
// other frontmatter key. When the model did not see the old body (the store
// was too large to show it), the new text is added below the old one, under
// the old description, instead of replacing it, so nothing is lost.
func (p *planner) update(m *index.Memory, desc, body, scope string, cites []string) string {
	switch {
	case m.Readonly:
		return m.File + " is readonly"
	case m.Superseded():
		return m.File + " is superseded by " + m.SupersededBy + "; update that one"
	case strings.Contains(m.File, "/"):
		return m.File + " is in a subfolder; memoryd changes only top-level files"
	case p.planned[m.File]:
		return "proposed twice: " + m.File
	}
	if !p.shown[m.File] {
		if strings.Contains(index.Canonical(m.Body), index.Canonical(body)) {
			return "no change to " + m.File
		}
		body = strings.TrimRight(m.Body, "\n") + "\n\n" + body
		desc = cmpOr(m.Description, desc)
	}
	if index.Canonical(body) == index.Canonical(m.Body) && index.Canonical(desc) == index.Canonical(m.Description) {
		return "no change to " + m.File
	}
	if dup := p.duplicate(m.File, "", body); dup != "" {
		return "duplicate of " + dup
	}
	c := *m
	c.Description, c.Body = desc, body
	p.accept(Change{File: m.File, Action: "update", Data: c.Format(), prev: m.Hash, scope: scope, cites: cites}, desc, body)
	return ""
}

// duplicate returns the file (other than self) that already holds the
// text: the same canonical body, a body that contains it, or the same
// canonical description.
func (p *planner) duplicate(self, desc, body string) string {
	c := index.Canonical(body)
	if f, ok := p.canonBody[c]; ok && f != self {
		return f
	}
	if d := index.Canonical(desc); d != "" {
		if f, ok := p.canonDesc[d]; ok && f != self {
			return f
		}
	}
	if weight(c) < 2*minWeight {
		return "" // too little text to say another body holds it
	}
	files := make([]string, 0, len(p.canonBody))
	for other, f := range p.canonBody {
		if f != self && strings.Contains(other, c) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return ""
	}
	slices.Sort(files)
	return files[0]
}

func (p *planner) accept(c Change, desc, body string) {
	p.planned[c.File] = true
	p.changes = append(p.changes, c)
	p.remember(c.File, desc, body)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
