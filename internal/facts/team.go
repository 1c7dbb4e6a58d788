package facts

import (
	"context"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
)

// TeamProposal is a fact proposed for a project's team memory.
type TeamProposal struct {
	Fact
	// Mark adds the team's marker (package team's Mark) to the file's
	// bytes: which project's team memory the proposal is for.
	Mark func(data []byte) []byte
	// Duplicate returns the existing team fact that f says again (same
	// name, or the same content in other words), "" for none.
	Duplicate func(f Fact) (string, error)
}

// ProposeTeam writes p into the review inbox of the person's folder, marked
// for the team, and commits it there; it never writes the team's folder (a
// person's `memoryd review accept` does). A proposal that repeats a team
// fact is refused naming it. Done.File is the inbox file.
func (w *Writer) ProposeTeam(ctx context.Context, p TeamProposal) (Done, error) {
	f := p.Fact
	f.Description = strings.TrimSpace(f.Description)
	f.Body = strings.TrimSpace(strings.ReplaceAll(f.Body, "\r\n", "\n")) + "\n"
	if err := Check(f); err != nil {
		return Done{}, err
	}
	if dup, err := p.Duplicate(f); err != nil {
		return Done{}, err
	} else if dup != "" {
		return Done{}, fmt.Errorf("%s %w %s in the team memory: say it there (edit that file and commit it), or propose something it does not say", f.File(), ErrDuplicate, dup)
	}
	// Cited paths are relative to the project's root, whose team it is.
	cf := f
	if cf.Project = project.Slug(cf.CiteFrom); cf.CiteFrom == "" {
		cf.Project = project.Slug(w.dir())
	}
	cites, err := w.citesOf(cf)
	if err != nil {
		return Done{}, err
	}
	return w.locked(ctx, func(snap index.Snapshot) (Done, []byte, string, error) {
		file := freeInboxFile(snap, f.File())
		m := index.NewMemory(f.Type, f.Name, f.Description, f.Body)
		m.Cites = cites
		m.Updated = w.today()
		src := w.source()
		src.Cwd, src.Host = "", "" // the team reads it: no paths of this machine
		m.Sources = []index.Source{src}
		return Done{File: file, Action: "proposed"}, p.Mark(m.Format()), "", nil
	})
}

// freeInboxFile is the first inbox file for rel that snap does not have.
func freeInboxFile(snap index.Snapshot, rel string) string {
	for n := 1; ; n++ {
		if f := index.InboxFile(rel, n); ByFile(snap, f) == nil {
			return f
		}
	}
}

// TeamAccepted removes the inbox proposal name after the team's folder
// took it (where: the file written), in one review commit of the person's
// folder.
func (w *Writer) TeamAccepted(ctx context.Context, name, where string) (Done, error) {
	tx, err := w.opts.Folder.Begin(ctx, "memoryd "+w.opts.Who)
	if err != nil {
		return Done{}, err
	}
	defer tx.Close()
	m, err := findInbox(tx.Snapshot(), name)
	if err != nil {
		return Done{}, err
	}
	if err := tx.Remove(m.File, m.Hash); err != nil {
		return Done{}, err
	}
	msg := commitmsg.Message{Subject: fmt.Sprintf("memory: review: accept %s into the team memory (%s)", m.File, w.opts.Who),
		Body: "Written to " + where + ", not committed there.", Kind: commitmsg.KindReview, Writer: commitmsg.Person}
	res, err := tx.Commit(ctx, msg)
	return Done{File: where, Action: "accepted", Commit: res.Commit}, err
}

// FindInbox is the inbox proposal name (its file, with or without
// "_inbox/", or its name).
func FindInbox(snap index.Snapshot, name string) (*index.Memory, error) { return findInbox(snap, name) }

// ProposeSupersede puts in the review inbox the person's fact file marked
// as superseded by the team's fact team (".memory/x.md"), because the two
// say the same thing: accepting it supersedes the person's fact (it stays,
// as every superseded fact does), rejecting it keeps it. Nothing is changed
// without the person's review. ErrExists when a proposal for file already
// waits; ErrSuperseded when file is superseded; ErrReadonly when it is
// readonly.
func (w *Writer) ProposeSupersede(ctx context.Context, file, team string) (Done, error) {
	return w.locked(ctx, func(snap index.Snapshot) (Done, []byte, string, error) {
		cur := ByFile(snap, file)
		switch {
		case cur == nil:
			return Done{}, nil, "", fmt.Errorf("%s: %w", file, ErrNotFound)
		case cur.Superseded():
			return Done{}, nil, "", fmt.Errorf("%s %w by %s", file, ErrSuperseded, cur.SupersededBy)
		case cur.Readonly:
			return Done{}, nil, "", fmt.Errorf("%s %w", file, ErrReadonly)
		case ByFile(snap, index.InboxFile(file, 1)) != nil:
			return Done{}, nil, "", fmt.Errorf("a proposal for %s %w in the inbox", file, ErrExists)
		}
		d := Done{File: index.InboxFile(file, 1), Action: "proposed superseding", reason: "it says what the team's " + team + " says"}
		return d, MarkSuperseded(cur, team, w.today()), "", nil
	})
}
