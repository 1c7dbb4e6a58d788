package cite

import (
	"fmt"
	"io"

	"github.com/memoryd/memoryd/internal/index"
)

// Report is what `memoryd check` found: the facts that may be stale, those
// it could not check from here, and how many it compared.
type Report struct {
	Stale     []StaleFact `json:"stale"`     // the facts that may be stale, by file name
	Unchecked []string    `json:"unchecked"` // facts that cite files of a project whose root is not found from here
	Checked   int         `json:"checked"`   // facts with cites that were compared
}

// StaleFact is a fact whose cited files changed or are gone.
type StaleFact struct {
	File    string   `json:"file"`
	Project string   `json:"project,omitempty"`
	Root    string   `json:"root"`
	Marker  string   `json:"marker"`
	Changes []Change `json:"changes"`
}

// CheckAll compares the cites of the facts of snap that keep lets through
// with the files now; facts without cites, in the inbox or superseded are
// not compared.
func (c *Checker) CheckAll(snap index.Snapshot, keep func(*index.Memory) bool) Report {
	out := Report{Stale: []StaleFact{}, Unchecked: []string{}}
	for _, m := range snap.Memories {
		if len(m.Cites) == 0 || index.InInbox(m.File) || m.Superseded() || !keep(m) {
			continue
		}
		res := c.Check(m)
		switch {
		case res.Unchecked:
			out.Unchecked = append(out.Unchecked, m.File)
			continue
		case res.Stale():
			out.Stale = append(out.Stale, StaleFact{File: m.File, Project: m.Scope(), Root: res.Root,
				Marker: Marker(res.Changes), Changes: res.Changes})
		}
		out.Checked++
	}
	return out
}

// Print writes r as `memoryd check` shows it, with what to do next.
func (r Report) Print(w io.Writer) {
	for _, s := range r.Stale {
		fmt.Fprintf(w, "%s  %s\n", s.File, s.Marker)
	}
	if len(r.Unchecked) > 0 {
		fmt.Fprintf(w, "%d facts cite files of a project not found from here (run memoryd check in a checkout of it): %s\n",
			len(r.Unchecked), joinShort(r.Unchecked))
	}
	for _, s := range r.Stale {
		if s.Project == "team" {
			fmt.Fprintln(w, "a team fact (.memory/) is fixed in the project: edit its file and commit it with your change (memoryd why NAME says who added it)")
			break
		}
	}
	switch n := len(r.Stale); {
	case n > 0:
		fmt.Fprintf(w, "%d of %d facts that cite files may be stale: read the files, then fix the fact (memoryd edit NAME) or confirm it still holds (memoryd check --confirm NAME)\n", n, r.Checked)
	default:
		fmt.Fprintf(w, "%d facts cite files; none changed since it was written or confirmed\n", r.Checked)
	}
}

// joinShort lists names, the first few of them.
func joinShort(names []string) string {
	const most = 5
	if len(names) <= most {
		return fmt.Sprint(names)
	}
	return fmt.Sprintf("%v and %d more", names[:most], len(names)-most)
}
