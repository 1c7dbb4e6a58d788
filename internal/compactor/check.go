package compactor

import (
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// Bound on destructive ops: a batch's plan, a whole pass, and all passes
// of a rolling day (without --force) may each remove or gut at most
// min(maxRemoved, max(1, files/removedShare)) files. A delete counts one, a
// merge of k files k-1, a rewrite that drops most of a body one.
const (
	maxRemoved   = 20
	removedShare = 4
	boundWindow  = state.RemovalWindow
)

// destructiveLimit is the bound for a store of n files.
func destructiveLimit(n int) int { return min(maxRemoved, max(1, n/removedShare)) }

// destructive counts what op p takes away: files removed, and a body cut to
// less than half its text.
func destructive(p *planned) int {
	switch {
	case p.skip != "" || p.dedupe:
		return 0
	case p.Op.Op == OpDelete, p.Op.Op == OpSupersede:
		return 1 // out of every index (a delete is applied as a supersession)
	case p.Op.Op == OpMerge:
		return len(p.mems) - 1
	case p.Op.Op == OpRewrite && p.Body != "":
		old, cur := index.Canonical(p.mems[0].Body), index.Canonical(p.Body)
		if 2*len(cur) < len(old) {
			return 1
		}
	}
	return 0
}

// checker validates the ops of a pass against the scan it was planned
// from. It is used by one goroutine.
type checker struct {
	byFile     map[string]*index.Memory
	unreadable map[string]bool
	used       map[string]string // file → the op that will change or remove it
	targets    map[string]bool   // files merges will create
	log        *slog.Logger
	res        *Result
	// budget is what the rest of the pass may still remove or gut.
	budget int
}

func newChecker(snap index.Snapshot, log *slog.Logger, res *Result, budget int) *checker {
	ck := &checker{
		budget:     budget,
		byFile:     make(map[string]*index.Memory, len(snap.Memories)),
		unreadable: make(map[string]bool, len(snap.Unreadable)),
		used:       map[string]string{},
		targets:    map[string]bool{},
		log:        log,
		res:        res,
	}
	for _, m := range snap.Memories {
		ck.byFile[m.File] = m
	}
	for _, u := range snap.Unreadable {
		ck.unreadable[u.File] = true
	}
	return ck
}

// validate checks the ops of request n (batch b) in order and records the
// skipped ones. Flags are checked first: the files they name are protected
// from every destructive op of the same plan, because merging, deleting or
// rewriting one side of a contradiction would resolve it.
func (ck *checker) validate(ops []Op, b *batch, n int) []*planned {
	protected := map[string]bool{}
	flags := map[int]*planned{}
	for i, op := range ops {
		if op.Op == OpFlag {
			p := ck.flag(op, b)
			for _, m := range p.mems {
				protected[m.File] = p.skip == "" || protected[m.File]
			}
			flags[i] = p
		}
	}
	out := make([]*planned, 0, len(ops))
	for i, op := range ops {
		var p *planned
		switch op.Op {
		case OpFlag:
			p = flags[i]
		case OpMerge:
			p = ck.merge(op, b, protected)
		case OpDelete, OpSupersede:
			p = ck.supersede(op, b, protected)
		case OpRewrite:
			p = ck.rewrite(op, b, protected)
		default:
			p = &planned{Op: op, skip: fmt.Sprintf("unknown op %q", op.Op)}
		}
		out = append(out, p)
	}
	ck.successors(out)
	ck.bound(out, b, n)
	for _, p := range out {
		if p.skip != "" {
			ck.skipped(p.Op, p.skip)
		}
	}
	return out
}

func (ck *checker) skipped(op Op, why string) {
	ck.res.Skipped = append(ck.res.Skipped, Skipped{Op: op, Reason: why})
	ck.log.Warn("op skipped", "op", clip(op.String(), 200), "reason", why)
}

// files checks each of p's files (file) into p.mems; false, with p.skip
// saying why, at the first that cannot be used.
func (ck *checker) files(p *planned, b *batch, write bool, protected map[string]bool) bool {
	for _, f := range p.Files {
		m, why := ck.file(f, b, write, protected)
		if why != "" {
			p.skip = why
			return false
		}
		p.mems = append(p.mems, m)
	}
	return true
}

// file checks one file an op names. write means the op changes or removes it.
func (ck *checker) file(name string, b *batch, write bool, protected map[string]bool) (*index.Memory, string) {
	if why := unsafeName(name); why != "" {
		return nil, fmt.Sprintf("%q: %s", name, why)
	}
	m := ck.byFile[name]
	switch {
	case ck.unreadable[name]:
		return nil, name + ": could not be read or parsed; compaction never touches such a file"
	case m == nil:
		return nil, name + ": no such memory file"
	case !b.files[name]:
		return nil, name + ": not among the files of this request"
	case !write:
		return m, ""
	case m.Readonly:
		return nil, name + ": readonly"
	case protected[name]:
		return nil, name + ": flagged as a contradiction in the same plan"
	case ck.used[name] != "":
		return nil, name + ": already used by an earlier op (" + ck.used[name] + ")"
	}
	return m, ""
}

// unsafeName says why name cannot be a file compaction acts on, or "".
func unsafeName(name string) string {
	switch {
	case name == "":
		return "empty file name"
	case strings.ContainsFunc(name, func(r rune) bool { return r == '\\' || unicode.IsControl(r) }):
		return "unsafe characters in the file name"
	case strings.HasPrefix(name, "/") || filepath.IsAbs(name):
		return "absolute path"
	case !filepath.IsLocal(filepath.FromSlash(name)) || path.Clean(name) != name:
		return "not a clean path inside the memory folder"
	case index.Reserved(name):
		return "reserved file, never changed by compaction"
	case !index.IsMemory(name):
		return "not a memory file"
	}
	return ""
}

// files returns op.Files (and op.File) without repeats, in order.
func (op Op) files() []string {
	var out []string
	for _, f := range append(slices.Clone(op.Files), op.File) {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func (ck *checker) flag(op Op, b *batch) *planned {
	p := &planned{Op: op}
	p.Files, p.File = op.files(), ""
	if len(p.Files) == 0 {
		p.skip = "flag names no files"
		return p
	}
	if !ck.files(p, b, false, nil) {
		return p
	}
	if p.Note = strings.TrimSpace(op.Note); p.Note == "" {
		p.Note = strings.TrimSpace(op.Reason)
	}
	if p.Note == "" {
		p.skip = "flag without a note"
	}
	return p
}

// supersede validates a supersession, and a delete, which compaction
// never applies as one: a fact leaves the store only by a person's forget
// or by a merge into a fact that keeps all it said. A delete that names
// the fact replacing it ("by", or the one other file of the request its
// reason names) is applied as a supersession by that fact: the old file
// stays, marked metadata.superseded_by, out of every index and search. Any
// other delete is refused and the file kept.
func (ck *checker) supersede(op Op, b *batch, protected map[string]bool) *planned {
	p := &planned{Op: op}
	by := strings.TrimSpace(op.By)
	if by == "" && op.Op == OpDelete {
		by = namedIn(op.Reason, op.File, b)
	}
	m, why := ck.file(op.File, b, true, protected)
	switch {
	case why != "":
		p.skip = why
		return p
	case by == "":
		p.skip = op.File + ": compaction never deletes a fact; it may supersede it by the fact that replaces it, or merge it into one that keeps all it said (a person can run memoryd forget)"
		return p
	}
	n, why := ck.file(by, b, false, nil)
	switch {
	case why != "":
		p.skip = "superseded by " + why
	case n.File == m.File:
		p.skip = m.File + ": a fact cannot supersede itself"
	case n.Superseded():
		p.skip = n.File + ": superseded itself, by " + n.SupersededBy
	case n.Scope() != m.Scope():
		p.skip = fmt.Sprintf("%s and %s belong to different projects (%q, %q): a fact of one project never supersedes another's",
			m.File, n.File, m.Scope(), n.Scope())
	}
	if p.skip != "" {
		return p
	}
	p.Op.Op, p.Op.File, p.Op.By = OpSupersede, m.File, n.File
	p.mems = []*index.Memory{m, n}
	ck.used[m.File] = OpSupersede
	return p
}

// namedIn returns the one file of the request other than self that reason
// names, "" when it names none or several.
func namedIn(reason, self string, b *batch) string {
	found := ""
	for f := range b.files {
		if f != self && strings.Contains(reason, f) {
			if found != "" {
				return ""
			}
			found = f
		}
	}
	return found
}

// successors settles the supersessions of a plan against its other ops:
// one whose successor a merge of the same plan removes points to the
// merge's target instead; one whose successor is superseded in the same
// plan is skipped.
func (ck *checker) successors(ps []*planned) {
	into := map[string]string{} // merged file → the merge's target
	for _, p := range ps {
		if p.skip == "" && p.Op.Op == OpMerge && !p.dedupe {
			for _, f := range p.Files {
				into[f] = p.target
			}
		}
	}
	for _, p := range ps {
		if p.skip != "" || p.Op.Op != OpSupersede {
			continue
		}
		switch by := p.Op.By; {
		case into[by] != "":
			p.Op.By = into[by]
		case ck.used[by] == OpSupersede:
			p.skip = by + ": superseded itself in the same plan; name the fact that is current"
		}
	}
}
