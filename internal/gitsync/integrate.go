package gitsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
func (s *Syncer) integrate(ctx context.Context, g *gitCmd, branch, tip string, res *Result) error {
	pause := func(why string) error {
		res.Paused = why
		return fmt.Errorf("%w: %s", ErrPaused, why)
	}
	tx, err := s.opts.Folder.Begin(ctx, s.opts.Who)
	if errors.Is(err, folder.ErrBusy) || errors.Is(err, folder.ErrInOperation) {
		return pause(err.Error())
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
		return pause("the memory folder's pending changes could not be committed first: " + err.Error())
	}
	staged, err := g.out(ctx, "diff", "--cached", "--name-only", "--no-renames", "-z")
	if err != nil {
		return err
	}
	if staged != "" {
		first, _, _ := strings.Cut(staged, "\x00")
		return pause(fmt.Sprintf("changes are staged in the repository (%s); commit or unstage them (git status shows them), then run memoryd sync", first))
	}
	head, err := g.out(ctx, "rev-parse", "--verify", "refs/heads/"+branch)
	if err != nil {
		return err
	}
	n, err := g.out(ctx, "rev-list", "--count", head+".."+tip, "--")
	if err != nil {
		return err
	}
	target := tip
	if _, err := g.run(ctx, nil, "merge-base", "--is-ancestor", head, tip); err != nil {
		if gitstore.ExitCode(err) != 1 {
			return err
		}
		if target, err = s.merge(ctx, g, head, tip, res); err != nil {
			if res.Paused != "" {
				return fmt.Errorf("%w: %s", ErrPaused, res.Paused)
			}
			return err
		}
	}
	// The one step that changes the work tree: git checks, before it
	// writes anything, that no uncommitted change would be overwritten.
	if _, err := g.run(ctx, nil, "merge", "--ff-only", "--quiet", "--no-stat", target); err != nil {
		msg := firstLine(gitstore.GitMessage(err), err)
		res.Merge, res.Review = "", nil
		return pause(fmt.Sprintf("the remote's commits were not brought in: %s; commit or stash your changes to those files, then run memoryd sync", msg))
	}
	res.Pulled, _ = atoi(n)
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

// integrateTimeout bounds the integration, which runs without network.
const integrateTimeout = time.Minute

// stage is one side of a conflicted path in merge-tree's output.
type stage struct{ mode, oid string }

// merge merges tip into head without touching the work tree or the index
// (git merge-tree), resolves what conflicts as the package says, commits
// the result and returns the commit. A conflict it must not resolve sets
// res.Paused and res.Conflict and returns an error; nothing was changed.
func (s *Syncer) merge(ctx context.Context, g *gitCmd, head, tip string, res *Result) (string, error) {
	out, err := g.run(ctx, nil, "merge-tree", "--write-tree", "-z", "--messages", head, tip)
	if err != nil && gitstore.ExitCode(err) != 1 {
		if strings.Contains(gitstore.GitMessage(err), "usage") {
			res.Paused = "sync needs git 2.38 or later (git merge-tree --write-tree) to merge diverged histories; pull by hand: git pull"
		}
		return "", fmt.Errorf("merge-tree: %w", err)
	}
	tree, conflicts, kinds, perr := parseMergeTree(string(out))
	if perr != nil {
		return "", perr
	}
	rel := g.repo.Rel()
	inMemory := func(p string) (string, bool) {
		if rel == "" {
			return p, true
		}
		r, ok := strings.CutPrefix(p, rel+"/")
		return r, ok
	}
	stop := func(p, why string) (string, error) {
		res.Conflict = p
		res.Paused = fmt.Sprintf("%s conflicts with the remote's version (%s); nothing was changed. Merge by hand: git pull, resolve %s, commit; then run memoryd sync", p, why, p)
		return "", errors.New(res.Paused)
	}
	for p, kind := range kinds {
		switch kind {
		case "CONFLICT (contents)", "CONFLICT (add/add)", "CONFLICT (modify/delete)":
		default:
			if _, ok := conflicts[p]; ok || strings.HasPrefix(kind, "CONFLICT") {
				return stop(p, strings.ToLower(strings.TrimPrefix(kind, "CONFLICT ")))
			}
		}
	}
	var updates []string // --index-info lines
	var review []string
	var notes []string
	taken := map[string]bool{}
	for _, p := range sortedKeys(conflicts) {
		st := conflicts[p]
		mine, theirs := st[2], st[3]
		for _, x := range []stage{mine, theirs} {
			if x.mode != "" && x.mode != "100644" && x.mode != "100755" {
				return stop(p, "not a regular file on both sides")
			}
		}
		r, ok := inMemory(p)
		switch {
		case !ok:
			return stop(p, "not in the memory folder")
		case s.generated(ctx, g, r, mine, theirs):
			// Rebuilt from the facts after the merge: either side will do.
			pick := theirs
			if pick.oid == "" {
				pick = mine
			}
			updates = append(updates, indexInfo(pick, p))
		case index.IsMemory(r):
			// The remote's version stays; this machine's goes to review.
			updates = append(updates, indexInfo(theirs, p))
			if mine.oid == "" || mine.oid == theirs.oid {
				continue
			}
			name := inboxName(r, func(n string) bool {
				if taken[n] {
					return true
				}
				_, err := g.out(ctx, "cat-file", "-e", tree+":"+joinRel(rel, n))
				return err == nil
			})
			taken[name] = true
			updates = append(updates, indexInfo(stage{mode: "100644", oid: mine.oid}, joinRel(rel, name)))
			review = append(review, name)
			notes = append(notes, fmt.Sprintf("%s: both machines changed it; the remote's version stays and this one's is in %s for memoryd review.", r, name))
		default:
			return stop(p, "a file memoryd does not manage")
		}
	}
	if len(updates) > 0 {
		if tree, err = s.rewriteTree(ctx, g, tree, updates); err != nil {
			return "", err
		}
	}
	msg := syncMessage(fmt.Sprintf("memory: sync: merge %s", res.Target), notes...)
	commit, err := g.repo.CommitTree(ctx, tree, msg.String(), head, tip)
	if err != nil {
		return "", err
	}
	res.Merge, res.Review = commit, review
	return commit, nil
}

// generated reports whether the memory-folder file rel is one memoryd
// generates on both sides of a conflict (absent counts).
func (s *Syncer) generated(ctx context.Context, g *gitCmd, rel string, sides ...stage) bool {
	if rel == index.AttributesFile || rel == index.ProtocolFile || rel == index.IndexFile {
		return true
	}
	if !index.IsIndex(rel) {
		return false
	}
	for _, x := range sides {
		if x.oid == "" {
			continue
		}
		data, err := g.run(ctx, nil, "cat-file", "blob", x.oid)
		if err != nil || !index.GeneratedIndex(rel, data) {
			return false
		}
	}
	return true
}

// rewriteTree applies updates (git update-index --index-info lines) to
// tree in an index of its own, never the user's, and writes the result.
func (s *Syncer) rewriteTree(ctx context.Context, g *gitCmd, tree string, updates []string) (string, error) {
	dir, err := os.MkdirTemp("", "memoryd-sync-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	tmp := &gitCmd{repo: g.repo, env: append(append([]string{}, g.env...), "GIT_INDEX_FILE="+filepath.Join(dir, "index"))}
	if _, err := tmp.run(ctx, nil, "read-tree", tree); err != nil {
		return "", err
	}
	if _, err := tmp.run(ctx, []byte(strings.Join(updates, "\x00")+"\x00"), "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	return tmp.out(ctx, "write-tree")
}

// indexInfo is the --index-info line that puts x at p, or removes p when
// x is absent.
func indexInfo(x stage, p string) string {
	if x.oid == "" {
		return "0 0000000000000000000000000000000000000000\t" + p
	}
	return x.mode + " " + x.oid + "\t" + p
}

// parseMergeTree reads `git merge-tree --write-tree -z --messages`: the
// tree, the stages of each conflicted path (1 base, 2 ours, 3 theirs), and
// the kind of each message by path ("CONFLICT (contents)").
func parseMergeTree(out string) (tree string, conflicts map[string]map[int]stage, kinds map[string]string, err error) {
	fields := strings.Split(out, "\x00")
	if len(fields) == 0 || fields[0] == "" {
		return "", nil, nil, fmt.Errorf("merge-tree printed no tree: %q", out)
	}
	tree = fields[0]
	conflicts = map[string]map[int]stage{}
	i := 1
	for ; i < len(fields) && fields[i] != ""; i++ {
		meta, p, ok := strings.Cut(fields[i], "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return "", nil, nil, fmt.Errorf("merge-tree: cannot read %q", fields[i])
		}
		n, _ := atoi(f[2])
		if conflicts[p] == nil {
			conflicts[p] = map[int]stage{}
		}
		conflicts[p][n] = stage{mode: f[0], oid: f[1]}
	}
	kinds = map[string]string{}
	for i++; i < len(fields); {
		n, err := atoi(fields[i])
		if err != nil || i+n+2 >= len(fields) {
			break
		}
		paths := fields[i+1 : i+1+n]
		kind := fields[i+1+n]
		for _, p := range paths {
			if strings.HasPrefix(kind, "CONFLICT") || kinds[p] == "" {
				kinds[p] = kind
			}
		}
		i += n + 3
	}
	return tree, conflicts, kinds, nil
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

func atoi(s string) (int, error) {
	var n int
	_, err := fmt.Sscanf(strings.TrimSpace(s), "%d", &n)
	return n, err
}
