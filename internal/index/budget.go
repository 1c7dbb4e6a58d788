package index

import (
	"slices"
	"strconv"
	"strings"
)

// Budget is the most of one index file an agent loads. A zero field means
// the default of DefaultBudget.
type Budget struct {
	Lines int
	Bytes int
}

// DefaultBudget returns the default index budget: 200 lines and 25,000
// bytes, the most of MEMORY.md that agents load.
func DefaultBudget() Budget { return Budget{Lines: 200, Bytes: 25_000} }

func (b Budget) withDefaults() Budget {
	d := DefaultBudget()
	if b.Lines <= 0 {
		b.Lines = d.Lines
	}
	if b.Bytes <= 0 {
		b.Bytes = d.Bytes
	}
	return b
}

// Over reports whether index exceeds the budget, with its line count (a last
// line without a newline counts) and byte count.
func (b Budget) Over(index []byte) (over bool, lines, size int) {
	lines = countLines(index)
	return b.Exceeded(lines, len(index)), lines, len(index)
}

// Exceeded reports whether an index of lines and size bytes is over the
// budget.
func (b Budget) Exceeded(lines, size int) bool {
	b = b.withDefaults()
	return lines > b.Lines || size > b.Bytes
}

// extent is the size of a piece of an index file: lines and bytes.
type extent struct{ lines, bytes int }

func (a extent) plus(b extent) extent  { return extent{a.lines + b.lines, a.bytes + b.bytes} }
func (a extent) minus(b extent) extent { return extent{a.lines - b.lines, a.bytes - b.bytes} }
func (a extent) within(b extent) bool  { return a.lines <= b.lines && a.bytes <= b.bytes }

func extentOf(b []byte) extent { return extent{countLines(b), len(b)} }

func (b Budget) extent() extent {
	b = b.withDefaults()
	return extent{b.Lines, b.Bytes}
}

// nSections is the number of index sections: the known types, then Other.
const nSections = len(sectionTitles)

// sectionExtent is the size of a section's heading, "\n## Title\n".
func sectionExtent(sec uint8) extent { return extent{2, len(sectionTitles[sec]) + 5} }

// projectsHeading opens MEMORY.md's list of project indexes.
const projectsHeading = "\n## Projects\n"

// choice is what an index file lists within its budget.
type choice struct {
	items    []bool         // per layout item: listed
	projects []bool         // per layout project line: listed
	omitted  [nSections]int // memories left out, by section
	all      bool           // everything is listed
}

// choose picks what l lists within limit. When everything fits, everything
// is listed. Otherwise room is kept for the "more" line (as long as it could
// ever be), pinned facts are listed whatever the room, then project lines
// (MEMORY.md) get up to half of the room left — more when the facts need
// less — and facts fill the rest, in priority order: with a Preference,
// listed already, then most used (bucketed); then section (User, Feedback,
// Project, Reference, Other), newest metadata.updated, file name;
// more project lines may then take what the facts left.
// A line that does not fit is skipped and the next ones are still tried, so
// a long description does not keep shorter facts out.
func (l *layout) choose(limit extent, p *Preference) choice {
	c := choice{items: make([]bool, len(l.items)), projects: make([]bool, len(l.projects))}
	if l.fullExtent().within(limit) {
		c.all = true
		for i := range c.items {
			c.items[i] = true
		}
		for i := range c.projects {
			c.projects[i] = true
		}
		return c
	}
	f := &filler{l: l, c: &c, room: limit.minus(extentOf(l.head)).minus(l.moreReserve())}
	rest := f.pinned()
	if len(l.projects) > 0 {
		f.room = f.room.minus(l.chooseProjects(f.projectRoom(rest), c.projects))
	}
	f.fill(l.order(rest, p))
	if len(l.projects) > 0 { // what the facts left, the other projects may take
		f.room = f.room.minus(l.chooseProjects(f.room, c.projects))
	}
	for i, it := range l.items {
		if !c.items[i] {
			c.omitted[it.sec]++
		}
	}
	for i, p := range l.projects {
		if !c.projects[i] {
			for sec, n := range p.types {
				c.omitted[sec] += n
			}
		}
	}
	return c
}

// filler lists facts of a layout in the room left.
type filler struct {
	l      *layout
	c      *choice
	room   extent
	opened [nSections]bool // sections with a fact listed: their heading is paid for
}

// cost is what listing it takes, its section's heading included while
// opened says the section has none listed yet.
func (f *filler) cost(it *item, opened *[nSections]bool) extent {
	e := extent{1, len(it.line)}
	if !opened[it.sec] {
		e = e.plus(sectionExtent(it.sec))
	}
	return e
}

func (f *filler) take(i int) {
	it := &f.l.items[i]
	f.room = f.room.minus(f.cost(it, &f.opened))
	f.c.items[i], f.opened[it.sec] = true, true
}

// pinned lists every pinned fact, whatever the room, and returns the
// others.
func (f *filler) pinned() (rest []int) {
	for i := range f.l.items {
		if it := &f.l.items[i]; it.m.Pinned {
			f.take(i)
		} else {
			rest = append(rest, i)
		}
	}
	return rest
}

// projectRoom is the room the project lines may take: half of what is
// left, or more when the facts in rest need less.
func (f *filler) projectRoom(rest []int) extent {
	var need extent
	o := f.opened
	for _, i := range rest {
		need = need.plus(f.cost(&f.l.items[i], &o))
		o[f.l.items[i].sec] = true
	}
	r := f.room
	return extent{max(r.lines/2, r.lines-need.lines), max(r.bytes/2, r.bytes-need.bytes)}
}

// fill lists the facts of order that fit, in that order (see
// layout.order).
func (f *filler) fill(order []int) {
	for _, i := range order {
		if f.room.lines < 1 || f.room.bytes < len("- [](x)\n") {
			return // nothing fits any more
		}
		if f.cost(&f.l.items[i], &f.opened).within(f.room) {
			f.take(i)
		}
	}
}

// chooseProjects marks more project lines as listed in keep, those that fit
// within allow, the projects with the most memories first (then by slug),
// and returns the room they take.
func (l *layout) chooseProjects(allow extent, keep []bool) extent {
	order := make([]int, 0, len(l.projects))
	for i := range l.projects {
		if !keep[i] {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		if n, m := l.projects[a].total, l.projects[b].total; n != m {
			return m - n
		}
		return a - b // projects are sorted by slug
	})
	var used extent
	heading := !slices.Contains(keep, true)
	for _, i := range order {
		e := extent{1, len(l.projects[i].line)}
		if heading {
			e = e.plus(extent{2, len(projectsHeading)})
		}
		if used.plus(e).within(allow) {
			keep[i], used, heading = true, used.plus(e), false
		}
	}
	return used
}

// fullExtent is the size of l with everything listed.
func (l *layout) fullExtent() extent {
	e := extentOf(l.head)
	if len(l.items) == 0 && len(l.projects) == 0 {
		return e.plus(extent{2, len(emptyIndex) + 1})
	}
	var opened [nSections]bool
	for _, it := range l.items {
		if !opened[it.sec] {
			opened[it.sec] = true
			e = e.plus(sectionExtent(it.sec))
		}
		e = e.plus(extent{1, len(it.line)})
	}
	if len(l.projects) > 0 {
		e = e.plus(extent{2, len(projectsHeading)})
	}
	for _, p := range l.projects {
		e = e.plus(extent{1, len(p.line)})
	}
	return e
}

// minExtent is the most l takes when it cannot list everything: what it
// always shows (title, comment, banners, the "more" line) and its pinned
// facts.
func (l *layout) minExtent() extent {
	e := extentOf(l.head).plus(l.moreReserve())
	var opened [nSections]bool
	for _, it := range l.items {
		if it.m.Pinned {
			if !opened[it.sec] {
				opened[it.sec] = true
				e = e.plus(sectionExtent(it.sec))
			}
			e = e.plus(extent{1, len(it.line)})
		}
	}
	return e
}

// moreReserve is the most the "more" line (and the blank line before it)
// can take in l: its length with every memory of l left out, since fewer
// left out never makes it longer.
func (l *layout) moreReserve() extent {
	var all [nSections]int
	for _, it := range l.items {
		all[it.sec]++
	}
	for _, p := range l.projects {
		for sec, n := range p.types {
			all[sec] += n
		}
	}
	return extent{2, len(appendMore(nil, all)) + 1}
}

// appendMore appends the line that says what an index leaves out:
// "> 37 more memories are not listed here (reference 30, project 7) — …",
// types by count, most first, then in section order.
func appendMore(b []byte, omitted [nSections]int) []byte {
	total := 0
	secs := make([]int, 0, nSections)
	for sec, n := range omitted {
		if n > 0 {
			total += n
			secs = append(secs, sec)
		}
	}
	slices.SortStableFunc(secs, func(a, b int) int { return omitted[b] - omitted[a] })
	b = append(b, "> "...)
	b = strconv.AppendInt(b, int64(total), 10)
	if total == 1 {
		b = append(b, " more memory is not listed here ("...)
	} else {
		b = append(b, " more memories are not listed here ("...)
	}
	for i, sec := range secs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, strings.ToLower(sectionTitles[sec])...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(omitted[sec]), 10)
	}
	return append(b, ") — memoryd search WORDS, or the memory_search tool.\n"...)
}

// dateNum is metadata.updated as a number that sorts like the date
// (20250307), or 0 when it does not start with a date; see
// Memory.UpdatedDate.
func dateNum(s string) int {
	y, mo, d, ok := parseDate(s)
	if !ok {
		return 0
	}
	return y*10000 + mo*100 + d
}
