package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/mcpserver"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/team"
)

// Proposals for a project's team memory: memory_save with scope "team"
// and `memoryd share NAME` put a fact in the person's review inbox, marked
// for the team (team.Mark); `memoryd review accept` writes it into the
// project's .memory/ and commits nothing there.

func newCmdShare(a *app) *cobra.Command {
	cmd, _ := newFactCmd(a, "share NAME|FILE", "Propose one of your facts for the team memory of the current project (.memory/): it waits in your review inbox until you accept it.", runShare)
	return cmd
}

func runShare(ctx context.Context, o *factOptions) error {
	e := o.env
	f, err := openFolder(e, o.global)
	if err != nil {
		return err
	}
	snap, err := index.Scan(f.dir)
	if err != nil {
		return err
	}
	m, err := facts.Find(snap, o.name)
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	fact := facts.Fact{Type: m.Type, Name: m.Name, Description: m.Description, Body: m.Body}
	msg, err := proposeTeam(ctx, f, cwd, "cli", fact)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, msg)
	return nil
}

// proposeTeam puts fact in f's inbox as a proposal for the team memory of
// the project holding dir, refused when it repeats a team fact.
func proposeTeam(ctx context.Context, f *folder, dir, who string, fact facts.Fact) (string, error) {
	tf, ok := team.ForDir(dir)
	if !ok {
		return "", fmt.Errorf("%s is in no git repository: team memory lives in a project's repository (%s/ at its root)", dir, team.DirName)
	}
	w := f.writer(who)
	if who != "cli" {
		w = f.modelWriter(who)
	}
	d, err := w.ProposeTeam(ctx, facts.TeamProposal{Fact: fact,
		Mark: func(data []byte) []byte { return team.Mark(data, tf.Root) },
		Duplicate: func(fact facts.Fact) (string, error) {
			dup, err := tf.Duplicate(ctx, f.stateDir, fact.Name, fact.Description, fact.Body)
			if dup != "" {
				dup = teamFile(dup)
			}
			return dup, err
		}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("proposed %s for the team memory of %s (%s); it waits in the review inbox until a person accepts it (memoryd review accept %s).",
		d.File, tf.Slug, tf.Dir, fact.Name), nil
}

// mcpTeam is the MCP server's team memory for a session in cwd.
func mcpTeam(f *folder, cwd string) mcpserver.Team {
	t := mcpserver.Team{Name: team.DirName, Propose: func(ctx context.Context, who string, fact facts.Fact) (string, error) {
		return proposeTeam(ctx, f, cwd, who, fact)
	}}
	tf, ok := team.Find(cwd)
	if !ok {
		return t
	}
	t.Dir = tf.Dir
	t.Search = func(ctx context.Context, q mcpserver.Query) ([]mcpserver.Hit, error) {
		_, hits, err := teamHits(ctx, f.stateDir, cwd, search.Query{Words: q.Words, Phrasings: q.Phrasings, Type: q.Type, Limit: q.Limit})
		if err != nil {
			return nil, err
		}
		authors := teamAuthors(ctx, nil, tf, f.stateDir)
		out := make([]mcpserver.Hit, len(hits))
		for i, h := range hits {
			a, ok := authors[h.File]
			out[i] = mcpserver.Hit{File: h.File, Title: mcpserver.HitTitle(h), Description: h.Description, Snippet: h.Snippet, Team: team.Byline(a, ok)}
		}
		return out, nil
	}
	return t
}

// reviewTeam accepts the inbox proposal name into its team's memory when
// it is a team proposal (handled false otherwise): the checks of
// team.Folder.Accept, the file written into the project's .memory/, the
// proposal removed from the inbox in a commit of the person's folder, and
// nothing committed in the project.
func reviewTeam(ctx context.Context, out io.Writer, f *folder, w *facts.Writer, name string) (handled bool, err error) {
	snap, err := index.Scan(f.dir)
	if err != nil {
		return false, err
	}
	m, err := facts.FindInbox(snap, name)
	if err != nil {
		return false, nil // review says what is wrong
	}
	data, err := index.ReadPlain(f.dir, m.File)
	if err != nil {
		return false, nil
	}
	root := team.ProposalRoot(data)
	if root == "" {
		return false, nil
	}
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || fi == nil {
		return true, fmt.Errorf("%s is for the team memory of %s, which is not a git repository here any more: reject it, or check that project out there", m.File, root)
	}
	tf := team.At(root)
	b := index.Budget{Lines: f.cfg.Index.MaxLines, Bytes: f.cfg.Index.MaxBytes}
	wrote, err := tf.Accept(ctx, f.stateDir, f.gate(), index.InboxTarget(m.File), data, b)
	if err != nil {
		return true, err
	}
	if _, err := w.TeamAccepted(ctx, m.File, filepath.Join(root, wrote)); err != nil {
		return true, fmt.Errorf("%s was written, but the proposal is still in the inbox: %w", wrote, err)
	}
	fmt.Fprintf(out, "accepted %s into the team memory of %s: %s\n", m.File, tf.Slug, filepath.Join(root, wrote))
	fmt.Fprintf(out, "memoryd committed nothing in %s: commit it with your change (git add %s %s/%s)\n", root, wrote, team.DirName, index.IndexFile)
	teamOverlaps(ctx, out, tf, f.stateDir, f.dir, func() (*facts.Writer, error) { return w, nil })
	return true, nil
}

// inboxWhere is where an inbox fact would go, for review's list: "team
// shop" for a team proposal, else its project.
func inboxWhere(f *folder, m *index.Memory) string {
	data, err := index.ReadPlain(f.dir, m.File)
	if err != nil {
		return m.Project
	}
	if root := team.ProposalRoot(data); root != "" {
		return "team " + team.At(root).Slug + ": " + filepath.Join(root, team.DirName)
	}
	return m.Project
}
