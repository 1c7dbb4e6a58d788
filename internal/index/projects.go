package index

import "github.com/memoryd/memoryd/internal/project"

// Context returns what an agent loads at session start in project slug,
// within the one budget b: MEMORY.md, a blank line, then the project's
// index; with projectOnly, the project's index alone. Each part first gets
// what it always shows (title, banners, the "more" line, pinned facts), then
// the project's index half of the rest (more when MEMORY.md needs less),
// MEMORY.md what the project's index leaves.
// An invalid slug (see project.Valid) gives MEMORY.md alone, or nothing
// with projectOnly.
func Context(s Snapshot, slug string, b Budget, projectOnly bool) []byte {
	g := group(s)
	limit := b.extent()
	valid := project.Valid(slug)
	switch {
	case projectOnly && !valid:
		return nil
	case projectOnly:
		return g.layout(slug).render(limit)
	case !valid:
		return g.layout("").render(limit)
	}
	global := g.layout("")
	limit = limit.minus(extent{1, 1}) // the blank line between the two
	local := g.layout(slug)
	proj := local.render(shareFor(local, global, limit))
	out := global.render(limit.minus(extentOf(proj)))
	out = append(out, '\n')
	return append(out, proj...)
}

// Measure returns the size of every index file BuildAll makes for s within
// b, and how many memories each leaves out, in WriteIndex's order (Changed
// is false): what doctor and status show without writing anything.
func Measure(s Snapshot, b Budget) []IndexStat {
	all := buildAll(s, b, nil)
	out := make([]IndexStat, len(all))
	for i, ix := range all {
		out[i] = IndexStat{File: ix.file, Lines: countLines(ix.data), Bytes: len(ix.data), Omitted: ix.omitted}
	}
	return out
}

// ProjectIndexFile returns the name of a project's index, "MEMORY.<slug>.md".
func ProjectIndexFile(slug string) string { return "MEMORY." + slug + ".md" }

// ProjectFacts is how many memories one project has.
type ProjectFacts struct {
	Slug     string
	Memories int
}

// Projects returns the projects of s that have memories, sorted by slug.
func (s Snapshot) Projects() []ProjectFacts {
	g := group(s)
	out := make([]ProjectFacts, len(g.slugs))
	for i, slug := range g.slugs {
		out[i] = ProjectFacts{slug, len(g.bySlug[slug])}
	}
	return out
}

// BadProjects returns, sorted, the files whose metadata.project is set but
// is not a valid project slug: they are indexed as global facts, and
// MEMORY.md's banner names them.
func (s Snapshot) BadProjects() []string { return group(s).bad }

// shareFor is the room a's part of a page shared with b may take within
// limit: its minimum, then half of what the two minimums leave (more when
// b needs less), never cutting into b's minimum.
func shareFor(a, b *layout, limit extent) extent {
	aMin, bMin, bFull := a.minExtent(), b.minExtent(), b.fullExtent()
	spare := limit.minus(aMin).minus(bMin)
	dim := func(limit, aMin, bMin, bFull, spare int) int {
		share := max(aMin+spare/2, limit-bFull)
		return min(share, limit-min(bMin, bFull))
	}
	return extent{
		dim(limit.lines, aMin.lines, bMin.lines, bFull.lines, spare.lines),
		dim(limit.bytes, aMin.bytes, bMin.bytes, bFull.bytes, spare.bytes),
	}
}
