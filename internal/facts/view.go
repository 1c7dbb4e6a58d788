package facts

import (
	"time"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/usage"
)

// Staleness is what the JSON of a fact says when its cited files changed
// or are gone since it was written or confirmed (package cite).
type Staleness struct {
	Stale      bool          `json:"stale,omitempty"`
	Marker     string        `json:"staleMarker,omitempty"` // "may be stale: src/app.go changed since 2026-11-02"
	StaleCites []cite.Change `json:"staleCites,omitempty"`  // each cited file that differs: path, change, since
}

// StalenessOf is r as a fact's JSON says it.
func StalenessOf(r cite.Result) Staleness {
	if !r.Stale() {
		return Staleness{}
	}
	return Staleness{Stale: true, Marker: cite.Marker(r.Changes), StaleCites: r.Changes}
}

// View is a fact as the commands' JSON gives it (list, review, why;
// docs/JSON.md).
type View struct {
	File        string   `json:"file"`
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	Project     string   `json:"project,omitempty"`
	Updated     string   `json:"updated,omitempty"`
	Pinned      bool     `json:"pinned,omitempty"`
	Readonly    bool     `json:"readonly,omitempty"`
	Cites       []string `json:"cites,omitempty"` // metadata.cites as written: "path@blob#symbol"
	// SupersededBy and SupersededAt: the fact that replaced this one, and
	// the date (metadata.superseded_by, metadata.superseded_at).
	SupersededBy string `json:"supersededBy,omitempty"`
	SupersededAt string `json:"supersededAt,omitempty"`
	Staleness
}

// UsedView is a fact as list and show give it: with how often agents
// used it (package usage) and when last, RFC 3339; "" when never.
type UsedView struct {
	View
	Uses     int    `json:"uses"`
	LastUsed string `json:"last_used,omitempty"`
}

// ViewOf is m as its JSON gives it, its cites checked with chk.
func ViewOf(m *index.Memory, chk *cite.Checker) View {
	j := View{File: m.File, Name: m.Name, Title: m.Title, Description: m.Description, Type: m.Type,
		Project: m.Project, Updated: m.Updated, Pinned: m.Pinned, Readonly: m.Readonly,
		SupersededBy: m.SupersededBy, SupersededAt: m.SupersededAt,
		Staleness: StalenessOf(chk.Check(m))}
	for _, c := range m.Cites {
		j.Cites = append(j.Cites, c.String())
	}
	return j
}

// UsedViewOf is ViewOf with m's use from uses.
func UsedViewOf(m *index.Memory, uses map[string]usage.Use, chk *cite.Checker) UsedView {
	u := uses[m.File]
	j := UsedView{View: ViewOf(m, chk), Uses: u.Uses}
	if u.Uses > 0 {
		j.LastUsed = u.Last.Format(time.RFC3339)
	}
	return j
}

// Views is ViewOf of each fact of list; never nil.
func Views(list []*index.Memory, chk *cite.Checker) []View {
	out := make([]View, len(list))
	for i, m := range list {
		out[i] = ViewOf(m, chk)
	}
	return out
}

// UsedViews is UsedViewOf of each fact of list; never nil.
func UsedViews(list []*index.Memory, uses map[string]usage.Use, chk *cite.Checker) []UsedView {
	out := make([]UsedView, len(list))
	for i, m := range list {
		out[i] = UsedViewOf(m, uses, chk)
	}
	return out
}

// SupersededLine is what show and why say of a superseded fact, "" for a
// current one.
func SupersededLine(m *index.Memory) string {
	if !m.Superseded() {
		return ""
	}
	s := "superseded by " + m.SupersededBy
	if m.SupersededAt != "" {
		s += " on " + m.SupersededAt
	}
	return s + ": in no index, and search returns it only with --all-versions\n"
}

// Filter is which facts `memoryd list` shows: those of Project (or every
// project with All) and of the global scope, of Type ("" for any), and,
// when Unused is not 0, not used for Unused before Now.
type Filter struct {
	Project string
	All     bool
	Type    string
	Unused  time.Duration
	Now     time.Time
}

// Pick is the facts of snap (the memory folder dir) that f lets through,
// never superseded ones (show and why read those, list does not).
func Pick(dir string, snap index.Snapshot, uses map[string]usage.Use, f Filter) []*index.Memory {
	var list []*index.Memory
	for _, m := range snap.Memories {
		if m.Superseded() {
			continue
		}
		if (f.All || m.Project == "" || m.Project == f.Project) && (f.Type == "" || m.Type == f.Type) &&
			(f.Unused == 0 || !Touched(dir, m, uses).After(f.Now.Add(-f.Unused))) {
			list = append(list, m)
		}
	}
	return list
}
