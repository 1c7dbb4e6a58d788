package gitsync

import (
	"context"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// seenFile is the state file that keeps the remote's tip memoryd last saw.
const seenFile = "sync-seen.json"

// seen is seenFile: the tip of Target as of the last fetch or push.
type seen struct {
	Target string `json:"target"` // "origin/main"
	Tip    string `json:"tip"`
}

// lastSeen is the tip of target memoryd last saw, "" when none is kept
// (or it was kept for another target).
func (s *Syncer) lastSeen(target string) string {
	var v seen
	if s.opts.StateDir == "" || state.ReadJSON(s.opts.StateDir, seenFile, &v) != nil || v.Target != target {
		return ""
	}
	return v.Tip
}

// saw keeps tip as the tip of target memoryd last saw.
func (s *Syncer) saw(target, tip string) {
	if s.opts.StateDir == "" || s.lastSeen(target) == tip {
		return
	}
	if err := state.WriteJSON(s.opts.StateDir, seenFile, seen{Target: target, Tip: tip}); err != nil {
		s.log.Warn("keep the remote's tip", "err", err)
	}
}

// rewritten says why the round must pause when the remote's branch was
// rewritten — the tip memoryd last saw there (kept in the state folder,
// else the remote-tracking ref before the fetch) is not in the history of
// its new tip — and "" when it was not. Someone removed commits from the
// remote on purpose, a scrub of a fact that should never have been shared
// perhaps: merging this machine's history into the new one and pushing it
// would put them back. Nothing is changed until a person chooses.
func (s *Syncer) rewritten(ctx context.Context, repo *gitstore.Repo, target, before, tip string) string {
	last := s.lastSeen(target)
	if last == "" {
		last = before
	}
	if last == "" || last == tip {
		return ""
	}
	if have, _ := repo.ResolveCommit(ctx, last); have == "" {
		s.log.Warn("the remote's tip memoryd last saw is not in the repository; rewrites cannot be told", "tip", last)
		return ""
	}
	if ok, err := repo.IsAncestor(ctx, last, tip); ok || err != nil {
		return ""
	}
	dropped, _, _ := repo.AheadBehind(ctx, last, tip)
	what := fmt.Sprintf("%d commit(s) memoryd saw there are gone", dropped)
	if files := changedFacts(ctx, repo, last, tip); len(files) > 0 {
		what += "; the memory files it removed or changed: " + strings.Join(files, ", ")
	}
	remote, branch, _ := strings.Cut(target, "/")
	return fmt.Sprintf("the remote's branch %s was rewritten (force-pushed) since memoryd last saw it at %.12s: %s. "+
		"Nothing was changed here or there, and this machine's history is not pushed back. "+
		"Take the remote's history with memoryd sync --take-remote (facts only this machine has are kept in _inbox/ for memoryd review), "+
		"or keep both: check what the rewrite removed, then git pull --no-rebase %s %s && git push %s HEAD:%s (sync goes on once the remote's history holds %.12s again)",
		target, last, what, remote, branch, remote, branch, last)
}

// changedFacts lists the memory files (relative to the memory folder) that
// the commit from has and to lacks or holds otherwise, at most 5.
func changedFacts(ctx context.Context, repo *gitstore.Repo, from, to string) []string {
	a, errA := repo.TreeFiles(ctx, from)
	b, errB := repo.TreeFiles(ctx, to)
	if errA != nil || errB != nil {
		return nil
	}
	var out []string
	for _, p := range sortedKeys(a) {
		if index.IsMemory(p) && b[p] != a[p] {
			out = append(out, p)
		}
	}
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return out
}
