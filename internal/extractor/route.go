package extractor

import (
	"context"
	"fmt"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// This file decides where each proposed fact of a pass goes: left out when
// git ignores its file, kept from overwriting a line a person wrote, to the
// review inbox, or marked as superseding an older fact.

// dropIgnored refuses the changes to files git would not commit (ignored
// and untracked): no commit would keep them, so nothing could undo them.
func (x *Extractor) dropIgnored(ctx context.Context, res *Result) error {
	if x.deps.Repo == nil || len(res.Changes) == 0 {
		return nil
	}
	files := make([]string, len(res.Changes))
	for i, c := range res.Changes {
		files[i] = c.File
	}
	ignored, err := x.deps.Repo.Ignored(ctx, files)
	if err != nil || len(ignored) == 0 {
		return err
	}
	kept := res.Changes[:0:0]
	for _, c := range res.Changes {
		if ignored[c.File] {
			res.Rejected = append(res.Rejected, Rejection{Name: c.File, Reason: "git ignores " + c.File + "; memoryd never writes a file no commit would keep"})
			continue
		}
		kept = append(kept, c)
	}
	res.Changes = kept
	return nil
}

// keepHandLines refuses an update that would drop a line a person wrote
// (facts.HandLines): the model was asked to keep what is still true, and
// nothing else guards a hand-written line.
func (x *Extractor) keepHandLines(ctx context.Context, snap index.Snapshot, res *Result) error {
	var repo *gitstore.Repo
	if r, ok := x.deps.Repo.(*gitstore.Repo); ok {
		repo = r
	}
	kept := res.Changes[:0:0]
	for _, c := range res.Changes {
		if c.Action != "update" {
			kept = append(kept, c)
			continue
		}
		cur := facts.ByFile(snap, c.File)
		next, err := c.fact()
		if cur == nil || err != nil {
			kept = append(kept, c)
			continue
		}
		hand, err := facts.HandLines(ctx, repo, cur)
		if err != nil {
			return err
		}
		if gone := facts.Dropped(hand, next.Body); len(gone) > 0 {
			// A proposal for a person instead: the file stays as it is.
			c.review = fmt.Sprintf("it would drop %d line(s) a person wrote (%q)", len(gone), clip(gone[0], 60))
		}
		kept = append(kept, c)
	}
	res.Changes = kept
	return nil
}

// toInbox sends to the inbox (index.InboxDir) the changes a person must
// review: every fact of a type under review (Options.Review), and updates
// that would drop hand-written lines. The fact itself is untouched until
// the proposal is accepted. A proposal already waiting is not made twice.
func (x *Extractor) toInbox(snap index.Snapshot, res *Result) {
	kept := res.Changes[:0:0]
	for _, c := range res.Changes {
		if c.Action == "supersede" || c.team {
			kept = append(kept, c) // follows its successor (supersessions), or goes to the team's review (toTeam)
			continue
		}
		m, err := c.fact()
		if c.review == "" && (err != nil || x.opts.Review == nil || !x.opts.Review(m.Type)) {
			kept = append(kept, c)
			continue
		}
		file := index.InboxDir + "/" + c.File
		if facts.ByFile(snap, file) != nil {
			res.Rejected = append(res.Rejected, Rejection{Name: c.File, Reason: "a proposal for it already waits for review"})
			continue
		}
		if c.review == "" {
			c.review = "extract.review"
		}
		c.File, c.prev, c.Action = file, "", "propose"
		kept = append(kept, c)
	}
	res.Changes = kept
}

// supersessions keeps a supersession only when the fact that replaces the
// old one is written in the same pass, in the same project: one whose
// successor went to review, was dropped, or landed in another project
// (stamp decides a fact's project) is refused, and the old fact stays
// current.
func supersessions(res *Result) {
	created := map[string]string{} // file written as a create → its project
	for i := range res.Changes {
		if c := &res.Changes[i]; c.Action == "create" {
			if m, err := c.fact(); err == nil {
				created[c.File] = m.Scope()
			}
		}
	}
	kept := res.Changes[:0:0]
	for _, c := range res.Changes {
		if c.Action != "supersede" {
			kept = append(kept, c)
			continue
		}
		scope, ok := created[c.by]
		old, err := c.fact()
		switch {
		case !ok:
			res.Rejected = append(res.Rejected, Rejection{Name: c.File, Reason: "stays current: " + c.by + " is not written in this pass (review, or refused)"})
		case err != nil || old.Scope() != scope:
			res.Rejected = append(res.Rejected, Rejection{Name: c.File, Reason: "stays current: " + c.by + " holds in another project"})
		default:
			kept = append(kept, c)
		}
	}
	res.Changes = kept
}
