package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/facts"
	outgate "github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/recall"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/team"
)

// The commands' side of team memory (package team): the facts a project
// keeps in its .memory/ go to the agent beside the person's, marked as
// the team's, through the same gate. A team fact is named by its path from
// the project's root (".memory/project-x.md"); memory_read also takes
// "team:project-x.md".

// stateDirOf is the state folder of the memory folder dir, "" when it
// cannot be told (no confirmations then: every planted instruction held).
func stateDirOf(e env, dir string) string {
	real, err := state.RealPath(dir)
	if err != nil {
		return ""
	}
	sd, _ := state.Dir(stateHome(e), real)
	return sd
}

// teamAuthors is who added and last changed each fact of tf, from the
// cache in the team's state folder while HEAD stays put. An error is
// written to stderr (when set) and gives no bylines: the facts go anyway.
func teamAuthors(ctx context.Context, stderr io.Writer, tf team.Folder, stateDir string) map[string]gitstore.Authorship {
	var a map[string]gitstore.Authorship
	var err error
	if stateDir == "" {
		a, err = tf.Authors(ctx)
	} else {
		a, err = tf.CachedAuthors(ctx, tf.StateDir(stateDir))
	}
	if err != nil && stderr != nil {
		fmt.Fprintf(stderr, "memoryd: who wrote the team facts cannot be read from git (%v)\n", err)
	}
	return a
}

// teamSection is the team's part of `memoryd context` in dir, nil when
// dir's project has no team memory: its index within its own budget b,
// less what the gate holds (with the reason), each line with its byline
// and, when its cited files changed, the stale note. A team fact that
// arrived since the last session start and says what one of the person's
// facts says proposes superseding theirs (teamOverlaps).
func teamSection(ctx context.Context, e env, g globalFlags, memoryDir, dir string, b index.Budget) []byte {
	tf, ok := team.Find(dir)
	if !ok {
		return nil
	}
	tf = tf.Once() // one stat of its files for the section and the comparison
	sd := stateDirOf(e, memoryDir)
	defer teamOverlaps(ctx, e.stderr, tf, sd, memoryDir, func() (*facts.Writer, error) {
		_, w, err := factWriter(e, g)
		return w, err
	})
	text, err := teamContext(ctx, e.stderr, tf, sd, dir, b)
	if err != nil {
		fmt.Fprintf(e.stderr, "memoryd: the team memory in %s cannot be read (%v)\n", tf.Dir, err)
		return nil
	}
	if text == nil {
		return nil
	}
	return append([]byte("\n"), text...)
}

// teamContext is tf's section as an agent in dir gets it (team.Folder.
// Context), from the cache in the state folder sd when it can be.
func teamContext(ctx context.Context, stderr io.Writer, tf team.Folder, sd, dir string, b index.Budget) ([]byte, error) {
	g := outgate.NewGate(sd)
	chk := cite.NewChecker(dir)
	notes := team.Notes{
		Byline: team.Bylines(func() map[string]gitstore.Authorship { return teamAuthors(ctx, stderr, tf, sd) }),
		Stale:  func(rel string) string { return cite.Marker(tf.CheckCites(chk, rel).Changes) },
	}
	if sd == "" {
		return tf.Context(b, g.PlantedHeld, notes)
	}
	return tf.CachedContext(tf.StateDir(sd), confirmationsStamp(sd), b, g.PlantedHeld, notes)
}

// confirmationsStamp stands for the gate's confirmations in the state
// folder sd (what else a team section depends on): their file's size and
// time.
func confirmationsStamp(sd string) string {
	fi, err := os.Stat(filepath.Join(sd, outgate.ConfirmedFile))
	if err != nil {
		return "none"
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
}

// teamFile is the name a team fact goes by: its path from the project's
// root.
func teamFile(rel string) string { return team.DirName + "/" + rel }

// teamRel is the file inside the team folder that name (".memory/x.md",
// "team:x.md") names; ok is false for a person's fact.
func teamRel(name string) (string, bool) {
	name = strings.TrimSpace(name)
	for _, p := range []string{team.Prefix, team.DirName + "/"} {
		if rel, ok := strings.CutPrefix(name, p); ok && rel != "" && !strings.Contains(rel, "/") && path.Clean(rel) == rel {
			return rel, true
		}
	}
	return "", false
}

// teamHits searches the team memory of cwd's project with q's words.
func teamHits(ctx context.Context, stateDir, cwd string, q search.Query) (team.Folder, []search.Hit, error) {
	tf, ok := team.Find(cwd)
	if !ok || stateDir == "" {
		return tf, nil, nil
	}
	q.Project, q.All, q.Embedder, q.Explain = tf.Slug, true, nil, false
	hits, err := search.Find(ctx, tf.StateDir(stateDir), tf.Dir, q)
	return tf, hits, err
}

// teamRecall is the team's candidates for a prompt's recall: the facts
// the search finds, less those skip names or the session loaded with the
// team's section, each through the gate, marked with its byline.
func teamRecall(ctx context.Context, f *folder, cwd, words string, skip func(string) bool) []recall.Fact {
	tf, hits, err := teamHits(ctx, f.stateDir, cwd, search.Query{Words: words, Limit: recallCandidates})
	if err != nil || len(hits) == 0 {
		return nil
	}
	b := index.Budget{Lines: f.cfg.Index.MaxLines, Bytes: f.cfg.Index.MaxBytes}
	g := f.gate()
	loaded := map[string]bool{}
	if text, err := teamContext(ctx, nil, tf, f.stateDir, cwd, b); err == nil {
		for _, m := range recall.IndexLink.FindAllSubmatch(text, -1) {
			loaded[string(m[1])] = true
		}
	}
	authors := teamAuthors(ctx, nil, tf, f.stateDir)
	chk := cite.NewChecker(cwd)
	var out []recall.Fact
	for _, h := range hits {
		name := teamFile(h.File)
		if loaded[name] || skip(name) {
			continue
		}
		d, m := g.DecideFile(outgate.RoadRecall, tf.Dir, h.File, cite.Marker(tf.CheckCites(chk, h.File).Changes))
		if d.Verdict == outgate.Hold {
			continue
		}
		a, ok := authors[h.File]
		mark := team.Byline(a, ok)
		if d.Mark != "" {
			mark += "; " + d.Mark
		}
		out = append(out, recall.Fact{File: name, Title: index.TitleOf(d.Title, m.Name, m.File), Description: d.Description, Body: d.Body, Stale: mark})
	}
	return out
}

// teamSearch is the team's hits for `memoryd search` in the current
// directory, after the person's: named .memory/x.md, project "team", each
// through the gate as search gives the person's.
func teamSearch(ctx context.Context, f *folder, q search.Query) []hitJSON {
	cwd := workDir()
	tf, hits, err := teamHits(ctx, f.stateDir, cwd, q)
	if err != nil || len(hits) == 0 {
		return nil
	}
	g := f.gate()
	authors := teamAuthors(ctx, nil, tf, f.stateDir)
	chk := cite.NewChecker(cwd)
	var out []hitJSON
	for _, h := range hits {
		d, m := g.DecideFile(outgate.RoadSearch, tf.Dir, h.File, "")
		switch d.Verdict {
		case outgate.Hold:
			continue
		case outgate.Redact:
			h.Title, h.Description, h.Snippet = index.TitleOf(d.Title, m.Name, m.File), d.Description, d.Reason
		}
		a, ok := authors[h.File]
		st := facts.StalenessOf(tf.CheckCites(chk, h.File))
		h.File, h.Project = teamFile(h.File), "team"
		out = append(out, hitJSON{Hit: h, Staleness: st, Team: team.Byline(a, ok)})
	}
	return out
}

// teamOverlaps proposes superseding each of the person's facts that says
// what a team fact of tf says (team.Folder.ProposeSupersessions), and says
// so on out. open gives the writer, asked only when there is one. Failures
// are said on out: the session or the review goes on.
func teamOverlaps(ctx context.Context, out io.Writer, tf team.Folder, stateDir, memoryDir string, open func() (*facts.Writer, error)) {
	if stateDir == "" {
		return
	}
	notes, err := tf.ProposeSupersessions(ctx, stateDir, memoryDir, open)
	for _, n := range notes {
		fmt.Fprintf(out, "memoryd: %s\n", n)
	}
	if err != nil {
		fmt.Fprintf(out, "memoryd: the team memory in %s: %v\n", tf.Dir, err)
	}
}

// extractionTeam is extractor.Options.Team: the team memory of a session's
// project when it has one (found as a session start finds it), nil else.
func extractionTeam(stateDir string) func(dir string) *extractor.Team {
	return func(dir string) *extractor.Team {
		tf, ok := team.Find(dir)
		if !ok {
			return nil
		}
		return &extractor.Team{Mark: func(data []byte) []byte { return team.Mark(data, tf.Root) },
			Duplicate: func(ctx context.Context, name, description, body string) (string, error) {
				return tf.Duplicate(ctx, stateDir, name, description, body)
			}}
	}
}

// teamCheck adds to out the team facts of dir's project whose cited files
// changed (memoryd check), named .memory/x.md, project "team".
func teamCheck(out cite.Report, dir, typ string) cite.Report {
	tf, ok := team.Find(dir)
	if !ok {
		return out
	}
	stale, n, err := tf.Stale(cite.NewChecker(dir), typ)
	if err != nil {
		out.Unchecked = append(out.Unchecked, tf.Dir+" ("+err.Error()+")")
		return out
	}
	out.Checked += n
	for _, s := range stale {
		out.Stale = append(out.Stale, cite.StaleFact{File: teamFile(s.File), Project: "team", Root: s.Result.Root,
			Marker: cite.Marker(s.Result.Changes), Changes: s.Result.Changes})
	}
	return out
}

// teamHeld is each team fact of dir's project the gate holds from agents
// in this checkout, "file: reason" (status, doctor).
func teamHeld(f *folder, dir string) []string {
	tf, ok := team.Find(dir)
	if !ok {
		return nil
	}
	held, _ := tf.Held(f.gate().PlantedHeld) // an unreadable folder is said where it is read
	return held
}

// teamHeldProblems is teamHeld as status's problems.
func teamHeldProblems(f *folder, dir string) []string {
	var out []string
	for _, h := range teamHeld(f, dir) {
		out = append(out, "the team's "+h+" — held from your agents in this checkout; read it, and fix it with your team in a commit to the project")
	}
	return out
}
