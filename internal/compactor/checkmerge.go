package compactor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// This file checks the ops that rewrite facts — a rewrite and a merge —
// and bounds how much one batch may remove.

func (ck *checker) rewrite(op Op, b *batch, protected map[string]bool) *planned {
	p := &planned{Op: op}
	m, why := ck.file(op.File, b, true, protected)
	p.Description = oneLine(op.Description)
	if why == "" && strings.TrimSpace(op.Body) == "" {
		p.Body = m.Body // a new description only: the body stays
	}
	switch {
	case why != "":
		p.skip = why
	case trimBody(p.Body) == trimBody(m.Body) && (p.Description == "" || p.Description == m.Description):
		p.skip = "rewrite changes nothing"
	default:
		p.mems = []*index.Memory{m}
		ck.used[m.File] = OpRewrite
	}
	return p
}

func trimBody(s string) string { return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n") }

func (ck *checker) merge(op Op, b *batch, protected map[string]bool) *planned {
	p := &planned{Op: op}
	p.Files, p.File = op.files(), ""
	if len(p.Files) < 2 {
		p.skip = "a merge needs at least two different files"
		return p
	}
	if !ck.files(p, b, true, protected) {
		return p
	}
	for _, m := range p.mems[1:] {
		if m.Scope() != p.mems[0].Scope() {
			p.skip = fmt.Sprintf("%s and %s belong to different projects (%q, %q): facts of different projects are never merged",
				p.mems[0].File, m.File, p.mems[0].Scope(), m.Scope())
			return p
		}
	}
	if op.Into == nil {
		p.skip = `merge without "into"`
		return p
	}
	into := mergedInto(op.Into, p.mems[0])
	target := index.NewMemory(into.Type, into.Name, "", "").File
	switch {
	case !slices.Contains(index.Types, into.Type):
		p.skip = fmt.Sprintf("merge into unknown type %q", into.Type)
	case !index.ValidName(into.Name):
		p.skip = fmt.Sprintf("merge into invalid name %q", into.Name)
	case strings.TrimSpace(into.Body) == "":
		p.skip = "merge with an empty body"
	case slices.Contains(p.Files, target):
	case ck.byFile[target] != nil || ck.unreadable[target]:
		p.skip = target + ": the merge target exists and is not one of the merged files"
	case ck.targets[target]:
		p.skip = target + ": already the target of an earlier merge"
	}
	if p.skip != "" {
		return p
	}
	for _, m := range p.mems {
		if gone := lost(m.Body, into.Description+"\n"+into.Body); gone != nil {
			p.skip = fmt.Sprintf("the merged fact drops what %s said (%s): a merge must keep all its files say, or leave them apart", m.File, quoteFew(gone, 5))
			return p
		}
	}
	p.Into, p.target = &into, target
	ck.targets[target] = true
	for _, f := range p.Files {
		ck.used[f] = OpMerge
	}
	return p
}

// mergedInto is the fact a merge writes as the model gave it, tidied: the
// type lower-cased, the name without the file's type prefix or ".md"
// (models often give the file name), the first merged fact's type and
// description where the model gave none.
func mergedInto(in *Into, first *index.Memory) Into {
	into := Into{Type: strings.ToLower(strings.TrimSpace(in.Type)), Name: strings.TrimSpace(in.Name),
		Description: oneLine(in.Description), Body: in.Body}
	if into.Type == "" {
		into.Type = first.Type
	}
	into.Name = strings.TrimPrefix(strings.TrimSuffix(into.Name, ".md"), into.Type+"-")
	if into.Description == "" {
		into.Description = first.Description
	}
	return into
}

// bound refuses a batch's plan whole when it would remove or gut too many
// files: more than the batch's own bound, or more than the pass has left.
func (ck *checker) bound(ps []*planned, b *batch, n int) {
	count := 0
	for _, p := range ps {
		count += destructive(p)
	}
	limit := min(destructiveLimit(len(b.items)), ck.budget)
	if count <= limit {
		ck.budget -= count
		ck.res.Destructive += count
		return
	}
	why := fmt.Sprintf("plan refused: it would remove or cut down %d of %d files (at most %d allowed)", count, len(b.items), limit)
	if limit < destructiveLimit(len(b.items)) {
		why += "; the bound for this pass or the last 24 hours is reached (a person can run 'memoryd compact --force')"
	}
	for _, p := range ps {
		if p.skip == "" {
			p.skip = why
		}
	}
	ck.res.refused++
	ck.res.Problems = append(ck.res.Problems, fmt.Sprintf("request %d: %s", n, why))
	ck.log.Warn("compaction plan refused", "request", n, "destructive", count, "files", len(b.items), "limit", limit)
}

// quoteFew quotes the first n of words, saying how many more there are.
func quoteFew(words []string, n int) string {
	var b strings.Builder
	for i, w := range words[:min(n, len(words))] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", w)
	}
	if len(words) > n {
		fmt.Fprintf(&b, " and %d more", len(words)-n)
	}
	return b.String()
}
