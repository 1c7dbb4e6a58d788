package extractor

import (
	"context"
	"strings"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
)

// Team is the team memory of a session's project (package team gives it;
// extraction only proposes to it, through the person's review inbox).
type Team struct {
	// Mark marks a fact file's bytes as a proposal for this team
	// (team.Mark).
	Mark func(data []byte) []byte
	// Duplicate is the team fact a fact with this name, description and
	// body says again, "" for none (team.Folder.Duplicate).
	Duplicate func(ctx context.Context, name, description, body string) (string, error)
}

// teamNote is what the prompt adds in a session whose project has team
// memory: the model may mark a fact about the repository for the team.
const teamNote = "This project keeps team memory (a .memory/ folder checked in with its code, read by every teammate's agent). " +
	"A fact about the repository itself — true for everyone who works in it, such as how to build or test it, which " +
	"service owns what, a rule of its code — rather than about the user: add \"scope\": \"team\" to it, and it is " +
	"proposed to the user for the team's memory instead of kept as theirs. Never for a fact about the user, their " +
	"preferences or their machine, and never to update an existing memory.\n\n"

// isTeam reports whether the model marked a proposal for the team.
func (p Proposal) isTeam() bool { return strings.EqualFold(strings.TrimSpace(p.Scope), "team") }

// toTeam turns the changes the model marked for the team into proposals in
// the person's review inbox, marked for t (Team.Mark): never a file of the
// person's memory, never a write into the project. One the team already
// holds is refused naming it. The proposal's provenance keeps no path or
// host of this machine: the team reads it.
func toTeam(ctx context.Context, t *Team, snap index.Snapshot, res *Result) error {
	kept := res.Changes[:0:0]
	taken := map[string]bool{}
	for _, c := range res.Changes {
		m, err := c.fact()
		if !c.team || err != nil {
			kept = append(kept, c)
			continue
		}
		dup, err := t.Duplicate(ctx, m.Name, m.Description, m.Body)
		if err != nil {
			return err
		}
		if dup != "" {
			res.Rejected = append(res.Rejected, Rejection{Name: c.File, Reason: "the team memory has it: .memory/" + dup})
			continue
		}
		for i := range m.Sources {
			m.Sources[i].Cwd, m.Sources[i].Host = "", ""
		}
		file := ""
		for n := 1; file == "" || facts.ByFile(snap, file) != nil || taken[file]; n++ {
			file = index.InboxFile(c.File, n)
		}
		taken[file] = true
		c.Data = t.Mark(m.Format())
		c.File, c.Action, c.review, c.mem, c.memErr = file, "propose", cmpOr(c.review, "for the team memory"), nil, nil
		kept = append(kept, c)
	}
	res.Changes = kept
	return nil
}
