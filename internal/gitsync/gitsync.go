// Package gitsync syncs a memory folder across machines through the notes
// repository's own git remote: no server of memoryd's. One Round fetches,
// integrates the remote's commits when it is safe, and pushes.
//
// The rules:
//
//   - git never prompts (GIT_TERMINAL_PROMPT=0, ssh in batch mode unless
//     the user chose their own ssh command); the user's credentials (ssh
//     agent, credential helper) are used as they are, never stored.
//   - The remote's commits are integrated under the write transaction's
//     lock (folder.Folder.Begin), never while a git operation of the user's is
//     under way or something of theirs is staged: a fast-forward when the
//     local branch has nothing of its own, else a merge computed without
//     touching the work tree (git merge-tree), committed, and then
//     fast-forwarded to. The work tree never sees a conflict marker.
//   - When both sides changed one fact, the remote's version stays and this
//     machine's goes to the review inbox (_inbox/<file>) as a proposal over
//     it: `memoryd review` shows the diff; accept keeps mine, reject keeps
//     theirs. Generated files (the indexes memoryd wrote, .gitattributes,
//     PROTOCOL.md) are rebuilt, never merged by hand. A conflict in any
//     other file — the user's own notes — stops the round with nothing
//     changed, and says which file and what to run.
//   - Push is a plain `git push` of the branch: never forced, so no commit
//     the remote has is ever rewritten. A push the remote refuses because
//     it moved on is integrated at the next round.
//   - A remote branch rewritten since memoryd last saw it (a scrub, force-
//     pushed) pauses every round with nothing changed until a person
//     chooses: TakeRemote, or a merge by hand. This machine's old history
//     is never pushed back on its own.
//   - git is spoken only through gitstore's verbs (Fetch, Push, MergeTree,
//     EditTree, FastForward, ...), which run it as every git of memoryd's
//     runs: no prompt, no hook, in a process group of its own.
package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

var (
	// ErrNoRemote means there is nothing to sync with: sync.remote is
	// empty and the branch has no upstream, or the remote is unknown.
	ErrNoRemote = errors.New("no remote to sync with")
	// ErrOffline means the remote could not be reached or refused us
	// (network, credentials). Local commits go on; the round is retried.
	ErrOffline = errors.New("the remote cannot be reached")
	// ErrPaused means the remote's commits could not be integrated now:
	// Result.Paused says why and what to do. Nothing was changed.
	ErrPaused = errors.New("sync paused")
)

// Options configure a Syncer.
type Options struct {
	Folder *folder.Folder // its Repo must be set
	// Remote is the git remote; "" means the current branch's upstream.
	Remote string
	// Who names the process in the write lock ("memoryd run (sync)").
	Who string
	// Timeout bounds one fetch or push; 0 means 2 minutes.
	Timeout time.Duration
	// StateDir is the memory folder's state folder, where the remote's
	// tip memoryd last saw is kept (see rewritten); "" keeps none, and the
	// remote-tracking ref as it was before the fetch stands in for it. A round
	// also records there where the facts it puts up for review came from
	// (ReviewOrigins).
	StateDir string
	// Getenv reads the environment (GIT_SSH_COMMAND, GIT_SSH); nil means
	// os.Getenv.
	Getenv func(string) string
	Logger *slog.Logger
}

// Syncer runs rounds for one memory folder.
type Syncer struct {
	opts Options
	log  *slog.Logger
}

// New returns a Syncer; it touches nothing.
func New(opts Options) *Syncer {
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Who == "" {
		opts.Who = "memoryd sync"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Syncer{opts: opts, log: log.With("component", "sync")}
}

// Result is what one round did, and where the branch stands after it.
type Result struct {
	Remote string `json:"remote"`           // "origin"
	Branch string `json:"branch"`           // the local branch, "main"
	Target string `json:"target,omitempty"` // the remote's branch, "origin/main"
	// Pulled is the number of the remote's commits integrated.
	Pulled int `json:"pulled"`
	// Pushed is the number of commits pushed.
	Pushed int `json:"pushed"`
	// Review lists the inbox files made from this machine's version of a
	// fact the remote changed too (_inbox/x.md).
	Review []string `json:"review,omitempty"`
	// Merge is the merge commit the round made, "" for none.
	Merge string `json:"merge,omitempty"`
	// Ahead and Behind count the commits the local branch has that the
	// remote lacks, and the other way round, after the round (as far as the
	// last fetch knows).
	Ahead  int `json:"ahead"`
	Behind int `json:"behind"`
	// Paused says why the remote's commits were not integrated, and what
	// to do ("" when they were, or there were none).
	Paused string `json:"paused,omitempty"`
	// Conflict is the file that is not a memory file whose conflict paused
	// the round, relative to the repository's top.
	Conflict string `json:"conflict,omitempty"`
	// Rewritten is set when the round paused because the remote's branch
	// was rewritten (force-pushed) since memoryd last saw it.
	Rewritten bool `json:"rewritten,omitempty"`
}

// Round fetches, integrates the remote's commits when it is safe, and
// pushes what the remote lacks. It returns an error wrapping ErrNoRemote,
// ErrOffline or ErrPaused (with Result.Paused) when it could not finish;
// what it did before is in the Result all the same. A remote branch that
// was rewritten since the last round pauses it (see rewritten).
func (s *Syncer) Round(ctx context.Context) (Result, error) {
	res, repo, tracking, before, err := s.begin(ctx)
	if err != nil {
		return res, err
	}
	remote, rbranch := res.Remote, strings.TrimPrefix(res.Target, res.Remote+"/")
	tip, err := s.fetch(ctx, repo, remote, rbranch, tracking)
	if err != nil {
		return res, err
	}
	if tip != "" {
		if why := s.rewritten(ctx, repo, res.Target, before, tip); why != "" {
			res.Paused, res.Rewritten = why, true
			return res, fmt.Errorf("%w: %s", ErrPaused, why)
		}
		s.saw(res.Target, tip)
		if res.Ahead, res.Behind, err = repo.AheadBehind(ctx, res.Branch, tip); err != nil {
			return res, err
		}
	}
	if res.Behind > 0 {
		if err := s.integrate(ctx, repo, res.Branch, tip, &res); err != nil {
			return res, err
		}
		s.recordReview(ctx, repo, &res)
		if res.Ahead, res.Behind, err = repo.AheadBehind(ctx, res.Branch, tip); err != nil {
			return res, err
		}
	} else if tip == "" {
		if res.Ahead, err = repo.CountCommits(ctx, res.Branch); err != nil {
			return res, err
		}
	}
	if res.Ahead == 0 || res.Behind > 0 {
		return res, nil
	}
	return res, s.push(ctx, repo, remote, rbranch, tracking, &res)
}

// begin resolves the branch and its target, says where the branch stands
// as far as the last fetch knows (what an offline round reports), and
// checks that a fetch may run now. before is what the remote-tracking ref
// named before this round's fetch.
func (s *Syncer) begin(ctx context.Context) (res Result, repo *gitstore.Repo, tracking, before string, err error) {
	repo = s.opts.Folder.Repo()
	if repo == nil {
		return res, nil, "", "", errors.New("sync needs the memory folder inside a git repository")
	}
	branch, err := repo.CurrentBranch(ctx)
	if err != nil {
		res.Paused = "HEAD is detached (no branch is checked out); check out the branch memoryd commits to: git switch <branch>"
		return res, nil, "", "", fmt.Errorf("%w: %s", ErrPaused, res.Paused)
	}
	res.Branch = branch
	remote, rbranch, err := s.target(ctx, repo, branch)
	if err != nil {
		return res, nil, "", "", err
	}
	res.Remote, res.Target = remote, remote+"/"+rbranch
	tracking = "refs/remotes/" + remote + "/" + rbranch
	if before, _ = repo.ResolveCommit(ctx, tracking); before != "" {
		res.Ahead, res.Behind, _ = repo.AheadBehind(ctx, branch, before)
	} else {
		res.Ahead, _ = repo.CountCommits(ctx, branch)
	}
	// Not beside a git command of the user's: their own `git pull` takes
	// the same remote-tracking ref's lock.
	if err := repo.Busy(); err != nil {
		res.Paused = strings.TrimPrefix(err.Error(), gitstore.ErrBusy.Error()+": ")
		return res, nil, "", "", fmt.Errorf("%w: %s", ErrPaused, res.Paused)
	}
	// A fetch killed with SIGKILL leaves the remote-tracking ref's lock,
	// which would fail every later fetch: removed once stale, like a
	// commit's locks.
	if b, locked := repo.RefLock(tracking); locked {
		res.Paused = b.String()
		return res, nil, "", "", fmt.Errorf("%w: %s", ErrPaused, res.Paused)
	}
	return res, repo, tracking, before, nil
}

// fetch fetches the remote's branch into its remote-tracking ref and
// returns its tip, "" when the remote has no such branch yet (the push
// creates it).
func (s *Syncer) fetch(ctx context.Context, repo *gitstore.Repo, remote, rbranch, tracking string) (string, error) {
	tip, err := repo.Fetch(ctx, s.net(), remote, rbranch, tracking)
	switch {
	case errors.Is(err, gitstore.ErrNoRemoteBranch):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("%w: fetch from %s: %s", ErrOffline, remote, firstLine(gitstore.GitMessage(err), err))
	}
	return tip, nil
}

// net is how fetch and push run.
func (s *Syncer) net() gitstore.Net {
	return gitstore.Net{Timeout: s.opts.Timeout, Getenv: s.opts.Getenv}
}

// target resolves the remote and its branch: sync.remote, else the
// branch's upstream; the upstream's branch when it is on that remote, else
// one of the same name.
func (s *Syncer) target(ctx context.Context, repo *gitstore.Repo, branch string) (remote, rbranch string, err error) {
	upRemote := repo.Config(ctx, "branch."+branch+".remote")
	upMerge := repo.Config(ctx, "branch."+branch+".merge")
	remote = s.opts.Remote
	if remote == "" {
		remote = upRemote
	}
	if remote == "" || remote == "." {
		return "", "", fmt.Errorf("%w: branch %s has no upstream; set one (git push -u origin %s) or set sync.remote", ErrNoRemote, branch, branch)
	}
	if repo.Config(ctx, "remote."+remote+".url") == "" {
		return "", "", fmt.Errorf("%w: git knows no remote %q (git remote -v lists them; git remote add %s <url> adds it)", ErrNoRemote, remote, remote)
	}
	rbranch = branch
	if remote == upRemote {
		if b, ok := strings.CutPrefix(upMerge, "refs/heads/"); ok && b != "" {
			rbranch = b
		}
	}
	return remote, rbranch, nil
}

// push pushes the branch to the remote's branch: a plain push, never
// forced. A refusal because the remote moved on is integrated next round.
func (s *Syncer) push(ctx context.Context, repo *gitstore.Repo, remote, rbranch, tracking string, res *Result) error {
	head, err := repo.ResolveCommit(ctx, "refs/heads/"+res.Branch)
	if err != nil || head == "" {
		return fmt.Errorf("read branch %s: %v", res.Branch, err)
	}
	if err := repo.Push(ctx, s.net(), remote, head, rbranch); err != nil {
		if !errors.Is(err, gitstore.ErrPushRejected) {
			return fmt.Errorf("%w: push to %s: %s", ErrOffline, remote, firstLine(gitstore.GitMessage(err), err))
		}
		if !s.pushedMeanwhile(ctx, repo, remote, rbranch, tracking, head, res) {
			return fmt.Errorf("%w: %s moved on while this round ran; its commits are integrated at the next round", ErrOffline, remote)
		}
		return nil
	}
	// What was pushed is what the remote has now.
	if err := repo.SetRef(ctx, tracking, head, "memoryd sync: pushed"); err != nil {
		s.log.Warn("record the pushed commit", "ref", tracking, "err", err)
	}
	s.saw(res.Target, head)
	res.Pushed, res.Ahead = res.Ahead, 0
	s.log.Info(fmt.Sprintf("pushed %d commit(s) to %s/%s", res.Pushed, remote, rbranch))
	return nil
}

// pushedMeanwhile reports whether a refused push's commits reached the
// remote anyway: another sync of this folder (the daemon's, beside
// `memoryd sync`) pushed the same commits first, and git refuses the
// second update of the ref. The round then ends as pushed.
func (s *Syncer) pushedMeanwhile(ctx context.Context, repo *gitstore.Repo, remote, rbranch, tracking, head string, res *Result) bool {
	tip, err := s.fetch(ctx, repo, remote, rbranch, tracking)
	if err != nil || tip == "" {
		return false
	}
	if there, err := repo.IsAncestor(ctx, head, tip); err != nil || !there {
		return false
	}
	s.saw(res.Target, tip)
	res.Ahead = 0
	s.log.Info(fmt.Sprintf("%s/%s already has this machine's commits", remote, rbranch))
	return true
}

func firstLine(msg string, err error) string {
	if msg == "" {
		return err.Error()
	}
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "hint:") {
			return l
		}
	}
	return err.Error()
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// syncMessage is the message of sync's commits.
func syncMessage(subject string, body ...string) commitmsg.Message {
	return commitmsg.Message{Subject: subject, Body: strings.Join(body, "\n"), Kind: commitmsg.KindSync, Writer: commitmsg.Person}
}

// inboxName is the inbox file for this machine's version of the fact rel
// (relative to the memory folder): _inbox/<rel>, subfolders kept, the name
// review accepts over the fact (index.InboxTarget); another when that one
// is taken.
func inboxName(rel string, taken func(string) bool) string {
	name := index.InboxFile(rel, 1)
	for n := 2; taken(name); n++ {
		name = index.InboxFile(rel, n)
	}
	return name
}
