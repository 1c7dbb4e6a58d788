package team

import (
	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
)

// StaleFact is a team fact whose cited files changed or are gone since it
// was written or confirmed.
type StaleFact struct {
	File   string // relative to the folder
	Result cite.Result
}

// Stale checks the cited files of every current team fact (of type typ,
// "" for all) with chk, made in a folder of the project, paths from the
// project's root: the facts that may be stale, and how many cite files.
func (f Folder) Stale(chk *cite.Checker, typ string) (stale []StaleFact, checked int, err error) {
	snap, err := f.Scan()
	if err != nil {
		return nil, 0, err
	}
	for _, m := range snap.Memories {
		if len(m.Cites) == 0 || m.Superseded() || typ != "" && m.Type != typ {
			continue
		}
		c := *m
		c.Project = f.Slug
		res := chk.Check(&c)
		if res.Unchecked {
			continue
		}
		checked++
		if res.Stale() {
			stale = append(stale, StaleFact{File: m.File, Result: res})
		}
	}
	return stale, checked, nil
}

// Held is each team fact that hold (the gate's reason, "" to give it)
// keeps from agents in this checkout, as "file: reason".
func (f Folder) Held(hold func(*index.Memory) string) ([]string, error) {
	snap, err := f.Scan()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range snap.Memories {
		if m.Superseded() {
			continue
		}
		if why := hold(m); why != "" {
			out = append(out, DirName+"/"+m.File+": "+why)
		}
	}
	return out, nil
}
