package gitsync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// TakeRemote is the way on from a rewritten remote (`memoryd sync
// --take-remote`): it fetches, and resets the branch to the remote's
// history. Facts this machine has that the remote never had — changed or
// added since the remote's tip memoryd last saw — are kept as review items
// (_inbox/<file>, in one commit on top of the remote's tip, pushed by the
// next round); what the rewrite removed is not brought back. Uncommitted
// changes to other files are kept, and a reset that would lose one is
// refused with nothing changed.
func (s *Syncer) TakeRemote(ctx context.Context) (Result, error) {
	res, repo, tracking, before, err := s.begin(ctx)
	if err != nil {
		return res, err
	}
	remote, rbranch := res.Remote, res.Target[len(res.Remote)+1:]
	tip, err := s.fetch(ctx, repo, remote, rbranch, tracking)
	if err != nil {
		return res, err
	}
	if tip == "" {
		return res, fmt.Errorf("%w: %s has no branch %s to take", ErrNoRemote, remote, rbranch)
	}
	last := s.lastSeen(res.Target)
	if last == "" {
		last = before
	}
	tx, err := s.opts.Folder.Begin(ctx, s.opts.Who)
	if errors.Is(err, folder.ErrBusy) || errors.Is(err, folder.ErrInOperation) {
		res.Paused = err.Error()
		return res, fmt.Errorf("%w: %s", ErrPaused, res.Paused)
	}
	if err != nil {
		return res, err
	}
	defer tx.Close()
	if err := s.takeLocked(ctx, tx, repo, tip, last, &res); err != nil {
		return res, err
	}
	if err := tx.Merged(res.Review...); err != nil {
		return res, err
	}
	msg := syncMessage(fmt.Sprintf("memory: sync: rebuild the indexes after taking %s", res.Target))
	if _, err := tx.Commit(ctx, msg); err != nil {
		s.log.Warn("rebuild the indexes after taking the remote", "err", err)
	}
	s.saw(res.Target, tip)
	res.Ahead, res.Behind, err = repo.AheadBehind(ctx, res.Branch, tip)
	return res, err
}

// takeLocked is TakeRemote under the write lock: the commit of what is
// kept for review, and the reset to it.
func (s *Syncer) takeLocked(ctx context.Context, tx *folder.Tx, repo *gitstore.Repo, tip, last string, res *Result) error {
	if _, err := tx.CommitPending(ctx, nil); err != nil {
		return pause(res, "the memory folder's pending changes could not be committed first: "+err.Error())
	}
	if why, err := staged(ctx, repo); why != "" || err != nil {
		if err != nil {
			return err
		}
		return pause(res, why)
	}
	head, err := repo.ResolveCommit(ctx, "refs/heads/"+res.Branch)
	if err != nil || head == "" {
		return fmt.Errorf("read branch %s: %v", res.Branch, err)
	}
	if own, err := ownFiles(ctx, repo, head, tip, last); err != nil || len(own) > 0 {
		if err != nil {
			return err
		}
		return pause(res, fmt.Sprintf("%s was changed on this machine and is not a fact memoryd can keep for review; taking the remote's history would drop that change. Merge by hand instead (git pull --no-rebase, then git push)", own[0]))
	}
	target, err := s.keepLocal(ctx, repo, head, tip, last, res)
	if err != nil {
		return err
	}
	if err := repo.ResetKeep(ctx, target); err != nil {
		res.Review = nil
		return pause(res, fmt.Sprintf("the remote's history was not taken: %s; commit or stash your changes to those files, then run memoryd sync --take-remote again", firstLine(gitstore.GitMessage(err), err)))
	}
	s.log.Info("took the remote's history", "remote", res.Target, "tip", tip, "review", res.Review)
	return nil
}

// keepLocal returns the commit to reset to: tip, or a commit on top of it
// holding, as review items, the facts head has in a version neither tip
// nor last (the remote's tip before the rewrite) has.
func (s *Syncer) keepLocal(ctx context.Context, repo *gitstore.Repo, head, tip, last string, res *Result) (string, error) {
	mine, err := repo.TreeFiles(ctx, head)
	if err != nil {
		return "", err
	}
	theirs, err := repo.TreeFiles(ctx, tip)
	if err != nil {
		return "", err
	}
	before := map[string]gitstore.Stage{}
	if last != "" {
		if before, err = repo.TreeFiles(ctx, last); err != nil {
			return "", err
		}
	}
	rel := repo.Rel()
	edits := map[string]gitstore.Stage{}
	var notes []string
	for _, p := range sortedKeys(mine) {
		x := mine[p]
		if !index.IsMemory(p) || theirs[p].OID == x.OID || before[p].OID == x.OID {
			continue
		}
		name := p // a review item already: it stays one
		if !index.InInbox(p) || theirs[p].OID != "" {
			name = inboxName(strings.TrimPrefix(p, index.InboxDir+"/"), func(n string) bool {
				_, ok := edits[joinRel(rel, n)]
				return ok || theirs[n].OID != ""
			})
		}
		edits[joinRel(rel, name)] = gitstore.Stage{Mode: "100644", OID: x.OID}
		res.Review = append(res.Review, name)
		notes = append(notes, fmt.Sprintf("%s: only this machine had this version; it is in %s for memoryd review.", p, name))
	}
	if len(edits) == 0 {
		return tip, nil
	}
	tree, err := repo.EditTree(ctx, tip, edits)
	if err != nil {
		return "", err
	}
	msg := syncMessage(fmt.Sprintf("memory: sync: take %s's rewritten history, keep this machine's facts for review", res.Target), notes...)
	return repo.CommitTree(ctx, tree, msg.String(), tip)
}

// ownFiles lists the files this machine changed since the remote's tip
// before the rewrite (last, else tip) that are neither memory files (kept
// for review) nor files memoryd generates (rebuilt): the user's own notes,
// which a reset to the remote would drop.
func ownFiles(ctx context.Context, repo *gitstore.Repo, head, tip, last string) ([]string, error) {
	base := last
	if base == "" {
		base = tip
	}
	changed, err := repo.ChangedPaths(ctx, base, head)
	if err != nil {
		return nil, err
	}
	var own []string
	for _, p := range changed {
		r, in := p, true
		if rel := repo.Rel(); rel != "" {
			r, in = strings.CutPrefix(p, rel+"/")
		}
		if in && (index.IsMemory(r) || index.Reserved(r)) {
			continue
		}
		own = append(own, p)
	}
	return own, nil
}
