package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// integrate brings the remote's commits up to tip into the branch, under
// the write lock: a fast-forward, else a merge made beside the work tree
// and fast-forwarded to. Whatever stops it stops it before anything is
// changed, with res.Paused saying why.
func (s *Syncer) integrate(ctx context.Context, repo *gitstore.Repo, branch, tip string, res *Result) error {
	tx, err := s.opts.Folder.Begin(ctx, s.opts.Who)
	if errors.Is(err, folder.ErrBusy) || errors.Is(err, folder.ErrInOperation) {
		return pause(res, err.Error())
	}
	if err != nil {
		return err
	}
	defer tx.Close()
	// Once begun, the integration runs to its end: a merge or commit cut
	// short by a daemon's shutdown would leave work for the user.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), integrateTimeout)
	defer cancel()
	// Edits of memory files waiting for the daemon's commit go in first,
	// as that commit would: the merge then sees them.
	if _, err := tx.CommitPending(ctx, nil); err != nil {
		return pause(res, "the memory folder's pending changes could not be committed first: "+err.Error())
	}
	if why, err := staged(ctx, repo); why != "" || err != nil {
		if err != nil {
			return err
		}
		return pause(res, why)
	}
	head, err := repo.ResolveCommit(ctx, "refs/heads/"+branch)
	if err != nil || head == "" {
		return fmt.Errorf("read branch %s: %v", branch, err)
	}
	_, n, err := repo.AheadBehind(ctx, head, tip)
	if err != nil {
		return err
	}
	target, err := s.moveTo(ctx, repo, head, tip, res)
	if err != nil {
		return err
	}
	// The one step that changes the work tree: git checks, before it
	// writes anything, that no uncommitted change would be overwritten.
	if err := repo.FastForward(ctx, target); err != nil {
		msg := firstLine(gitstore.GitMessage(err), err)
		res.Merge, res.Review = "", nil
		return pause(res, fmt.Sprintf("the remote's commits were not brought in: %s; commit or stash your changes to those files, then run memoryd sync", msg))
	}
	res.Pulled = n
	if err := tx.Merged(res.Review...); err != nil {
		return err
	}
	// Rebuild the indexes from the facts as they arrived, and commit them.
	msg := syncMessage(fmt.Sprintf("memory: sync: rebuild the indexes after pulling from %s", res.Target))
	if _, err := tx.Commit(ctx, msg); err != nil {
		s.log.Warn("rebuild the indexes after pulling", "err", err)
	}
	s.log.Info(fmt.Sprintf("pulled %d commit(s) from %s", res.Pulled, res.Target), "merge", res.Merge, "review", res.Review)
	return nil
}

// pause records in res why the round stopped short, and returns ErrPaused
// saying it.
func pause(res *Result, why string) error {
	res.Paused = why
	return fmt.Errorf("%w: %s", ErrPaused, why)
}

// moveTo is the commit the branch moves to: the remote's tip when the
// branch is behind it, else the merge of head and tip (merge).
func (s *Syncer) moveTo(ctx context.Context, repo *gitstore.Repo, head, tip string, res *Result) (string, error) {
	ff, err := repo.IsAncestor(ctx, head, tip)
	if err != nil || ff {
		return tip, err
	}
	target, err := s.merge(ctx, repo, head, tip, res)
	if err != nil && res.Paused != "" {
		return "", fmt.Errorf("%w: %s", ErrPaused, res.Paused)
	}
	return target, err
}

// integrateTimeout bounds the integration, which runs without network.
const integrateTimeout = time.Minute

// merge merges tip into head without touching the work tree or the index
// (git merge-tree), resolves what conflicts as the package says, commits
// the result and returns the commit. A conflict it must not resolve sets
// res.Paused and res.Conflict and returns an error; nothing was changed.
func (s *Syncer) merge(ctx context.Context, repo *gitstore.Repo, head, tip string, res *Result) (string, error) {
	m, err := repo.MergeTree(ctx, head, tip)
	if err != nil {
		if errors.Is(err, gitstore.ErrMergeTreeUnsupported) {
			res.Paused = "sync needs git 2.38 or later (git merge-tree --write-tree) to merge diverged histories; pull by hand: git pull"
		}
		return "", err
	}
	stop := func(p, why string) error {
		res.Conflict = p
		res.Paused = fmt.Sprintf("%s conflicts with the remote's version (%s); nothing was changed. Merge by hand: git pull, resolve %s, commit; then run memoryd sync", p, why, p)
		return errors.New(res.Paused)
	}
	for p, kind := range m.Kinds {
		switch kind {
		case "CONFLICT (contents)", "CONFLICT (add/add)", "CONFLICT (modify/delete)":
		default:
			if _, ok := m.Conflicts[p]; ok || strings.HasPrefix(kind, "CONFLICT") {
				return "", stop(p, strings.ToLower(strings.TrimPrefix(kind, "CONFLICT ")))
			}
		}
	}
	edits, review, notes, err := s.resolve(ctx, repo, m, stop)
	if err != nil {
		return "", err
	}
	tree := m.Tree
	if len(edits) > 0 {
		if tree, err = repo.EditTree(ctx, tree, edits); err != nil {
			return "", err
		}
	}
	msg := syncMessage(fmt.Sprintf("memory: sync: merge %s", res.Target), notes...)
	commit, err := repo.CommitTree(ctx, tree, msg.String(), head, tip)
	if err != nil {
		return "", err
	}
	res.Merge, res.Review = commit, review
	return commit, nil
}

// resolve decides each conflicted path of m: a generated file takes
// either side (it is rebuilt), a memory file takes the remote's version and
// this machine's goes to review, anything else stops the merge. It returns
// the edits of m's tree, the review items and the commit message's notes.
func (s *Syncer) resolve(ctx context.Context, repo *gitstore.Repo, m gitstore.Merged, stop func(p, why string) error) (edits map[string]gitstore.Stage, review, notes []string, err error) {
	rel := repo.Rel()
	edits = map[string]gitstore.Stage{}
	taken := map[string]bool{}
	for _, p := range sortedKeys(m.Conflicts) {
		mine, theirs := m.Conflicts[p][2], m.Conflicts[p][3]
		for _, x := range []gitstore.Stage{mine, theirs} {
			if x.Mode != "" && x.Mode != "100644" && x.Mode != "100755" {
				return nil, nil, nil, stop(p, "not a regular file on both sides")
			}
		}
		r, ok := p, true
		if rel != "" {
			r, ok = strings.CutPrefix(p, rel+"/")
		}
		switch {
		case !ok:
			return nil, nil, nil, stop(p, "not in the memory folder")
		case s.generated(ctx, repo, r, mine, theirs):
			// Rebuilt from the facts after the merge: either side will do.
			pick := theirs
			if pick.OID == "" {
				pick = mine
			}
			edits[p] = pick
		case index.IsMemory(r):
			// The remote's version stays; this machine's goes to review.
			edits[p] = theirs
			if mine.OID == "" || mine.OID == theirs.OID {
				continue
			}
			name := inboxName(r, func(n string) bool { return taken[n] || repo.HasPath(ctx, m.Tree, joinRel(rel, n)) })
			taken[name] = true
			edits[joinRel(rel, name)] = gitstore.Stage{Mode: "100644", OID: mine.OID}
			review = append(review, name)
			notes = append(notes, fmt.Sprintf("%s: both machines changed it; the remote's version stays and this one's is in %s for memoryd review.", r, name))
		default:
			return nil, nil, nil, stop(p, "a file memoryd does not manage")
		}
	}
	return edits, review, notes, nil
}

// generated reports whether the memory-folder file rel is one memoryd
// generates (folder.GeneratedBy) on both sides of a conflict (absent
// counts).
func (s *Syncer) generated(ctx context.Context, repo *gitstore.Repo, rel string, sides ...gitstore.Stage) bool {
	for _, x := range sides {
		blob := func() ([]byte, error) {
			if x.OID == "" {
				return nil, fs.ErrNotExist
			}
			return repo.Blob(ctx, x.OID)
		}
		if !folder.GeneratedBy(rel, blob) {
			return false
		}
	}
	return true
}

// staged says why a round must not integrate when something of the user's
// is staged, "" when nothing is.
func staged(ctx context.Context, repo *gitstore.Repo) (string, error) {
	files, err := repo.Staged(ctx)
	if err != nil || len(files) == 0 {
		return "", err
	}
	return fmt.Sprintf("changes are staged in the repository (%s); commit or unstage them (git status shows them), then run memoryd sync", files[0]), nil
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}
