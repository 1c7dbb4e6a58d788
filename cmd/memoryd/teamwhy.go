package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/memoryd/memoryd/internal/facts"
	outgate "github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/team"
)

// teamWhyShow is `memoryd why` and `show` (cmd) of a team fact: one named
// ".memory/x.md" or "team:x.md", or a name the person's folder lacks and
// the current project's team memory has. handled is false for anything
// else: the person's fact is shown as always.
func teamWhyShow(ctx context.Context, o *factOptions, cmd string) (handled bool, err error) {
	e := o.env
	tf, ok := team.Find(workDir())
	if !ok {
		return false, nil
	}
	f, err := readFolder(e, o.global)
	if err != nil {
		return false, nil
	}
	m, err := teamFact(f, tf, o.name)
	if m == nil {
		return err != nil, err
	}
	d := f.gate().Decide(outgate.RoadSearch, m, "")
	text := d.Text
	if d.Verdict == outgate.Hold {
		text = ""
	}
	authors, err := tf.Authors(ctx)
	if err != nil {
		return true, fmt.Errorf("who wrote %s cannot be read from %s's git history: %w", teamFile(m.File), tf.Root, err)
	}
	a, known := authors[m.File]
	if o.json {
		return true, writeJSON(e.stdout, teamFactJSON{File: teamFile(m.File), Team: tf.Slug, Root: tf.Root, Content: text, Gate: d.Reason + d.Mark,
			Added: commitOf(a.First, known), LastChanged: commitOf(a.Last, known)})
	}
	fmt.Fprintf(e.stdout, "# %s — team memory of %s, %s\n", teamFile(m.File), tf.Slug, team.Byline(a, known))
	if note := d.Reason + d.Mark; note != "" {
		fmt.Fprintf(e.stdout, "# %s\n", note)
	}
	fmt.Fprint(e.stdout, text)
	if cmd == "why" {
		printAuthorship(e.stdout, a, known)
		facts.PrintSources(e.stdout, m.Sources)
	}
	return true, nil
}

// teamFact is the team fact name names, nil (and no error) when name is
// the person's or the team has no such fact.
func teamFact(f *folder, tf team.Folder, name string) (*index.Memory, error) {
	rel, explicit := teamRel(name)
	if !explicit {
		snap, err := index.Scan(f.dir)
		if err != nil {
			return nil, err
		}
		if _, err := facts.Find(snap, name); !errors.Is(err, facts.ErrNotFound) {
			return nil, nil // the person's own fact (or their error) comes first
		}
		rel = name
	}
	snap, err := tf.Scan()
	if err != nil {
		return nil, err
	}
	m, err := facts.Find(snap, rel)
	if err != nil {
		if explicit {
			return nil, fmt.Errorf("%s: no such fact in %s", name, tf.Dir)
		}
		return nil, nil
	}
	return m, nil
}

// printAuthorship prints who added and last changed a team fact.
func printAuthorship(w io.Writer, a gitstore.Authorship, known bool) {
	if !known {
		fmt.Fprintln(w, "\nHistory: not committed in the project yet (commit it with your change).")
		return
	}
	fmt.Fprintf(w, "\nHistory (the project's git):\n  added by %s in %s on %s\n", a.First.Author, a.First.Hash, a.First.When.Format(time.DateOnly))
	if a.Last.Hash != a.First.Hash {
		fmt.Fprintf(w, "  last changed by %s in %s on %s\n", a.Last.Author, a.Last.Hash, a.Last.When.Format(time.DateOnly))
	}
}

type teamFactJSON struct {
	File        string          `json:"file"`
	Team        string          `json:"team"`
	Root        string          `json:"root"`
	Content     string          `json:"content"`
	Gate        string          `json:"gate,omitempty"`
	Added       *teamCommitJSON `json:"added"`
	LastChanged *teamCommitJSON `json:"lastChanged"`
}

type teamCommitJSON struct {
	Author string    `json:"author"`
	Commit string    `json:"commit"`
	At     time.Time `json:"at"`
}

func commitOf(c gitstore.FileCommit, known bool) *teamCommitJSON {
	if !known {
		return nil
	}
	return &teamCommitJSON{Author: c.Author, Commit: c.Hash, At: c.When}
}
