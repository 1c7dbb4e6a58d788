package gitstore

import (
	"context"
	"errors"
	"fmt"
	"github.com/memoryd/memoryd/internal/commitmsg"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Commit records the working state of paths (relative to the memory
// folder) in a new commit on the current branch and returns its hash.
//
// Only those paths are committed: new, modified and deleted files alike
// (`git add -A` then `git commit --only` with the same pathspec). Whatever
// else the user has staged stays staged and uncommitted, and nothing outside
// the memory folder is ever touched. Any state the index is in for those
// paths can be committed: a deletion already staged (`git rm`, `git mv`, or
// an earlier Commit whose add ran and whose commit did not) is committed as
// it is, and a staged entry whose file is gone from disk and from HEAD is
// unstaged. Paths gone from disk that neither HEAD nor the index has, and
// new paths the user's ignore rules exclude, are skipped; so is a file on
// disk whose name has a control character, which memoryd never adds (see
// Changes) — its deletion is committed like any other.
//
// None of the user's hooks runs (see noHooks): memoryd commits unattended,
// nobody could answer a hook's complaint, a failing hook would stall every
// later commit, a slow post-commit hook would make a commit that landed look
// timed out, and message checkers reject "memory: …" subjects.
//
// Errors: the ErrNoGit error of Open when git cannot be used; an error
// wrapping ErrBusy when the repository is busy (see Busy, which also names
// the way out) or another git process won a lock race between the two
// steps — nothing was committed, retry later (the paths may remain staged,
// which the retry completes); ErrNothingToCommit when the paths match HEAD.
func (r *Repo) Commit(ctx context.Context, msg string, paths []string) (string, error) {
	if r.gitErr != nil {
		return "", r.gitErr
	}
	if strings.TrimSpace(msg) == "" {
		return "", errors.New("commit: empty message")
	}
	specs, err := r.pathspecs(paths)
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if err := r.Busy(); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	toAdd, toCommit, err := r.plan(specs)
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if len(toAdd) > 0 {
		kept, err := r.add(ctx, toAdd)
		if err != nil {
			return "", fmt.Errorf("commit: %w", err)
		}
		toCommit = withoutIgnored(toCommit, toAdd, kept)
	}
	if len(toCommit) == 0 {
		return "", ErrNothingToCommit
	}
	hash, err := r.commit(ctx, msg, toCommit)
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	r.log.Debug("committed", "commit", hash, "files", len(toCommit), "subject", firstLine(msg))
	return hash, nil
}

// pathspecs validates memory-folder paths and turns them into sorted,
// unique work-tree paths.
func (r *Repo) pathspecs(paths []string) ([]string, error) {
	seen := make(map[string]bool, len(paths))
	specs := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "" || strings.ContainsRune(p, 0) || !filepath.IsLocal(filepath.FromSlash(p)) ||
			path.Clean(p) != p || slices.ContainsFunc(strings.Split(p, "/"), isDotGit) {
			return nil, fmt.Errorf("path %q is not a clean path inside the memory folder", p)
		}
		if s := r.spec(p); !seen[s] {
			seen[s] = true
			specs = append(specs, s)
		}
	}
	sort.Strings(specs)
	return specs, nil
}

func isDotGit(name string) bool { return strings.EqualFold(name, ".git") }

// plan decides, for each spec, whether `git add -A` stages it and whether
// `git commit` takes it. Both reject a pathspec that matches nothing, so:
//
//	on disk                                 add, commit
//	gone, in the index                      add (stages the deletion); commit if in HEAD
//	gone, not in the index, in HEAD         commit: the deletion is staged already
//	gone everywhere                         neither
//
// (`git commit --only` stages a deletion of a path it is given itself; the
// add is there for the entry that is in the index only. A split index,
// whose shared part indexFiles does not read, may hide such an entry: it
// then stays staged, which blocks nothing.)
//
// A directory is refused: as a pathspec it would take in every file below
// it, editor leftovers included. A file on disk whose name has a control
// character is left out, with a warning.
func (r *Repo) plan(specs []string) (toAdd, toCommit []string, err error) {
	var gone, bad []string
	for _, s := range specs {
		fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(s)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			gone = append(gone, s)
		case err != nil:
			return nil, nil, err
		case fi.IsDir():
			return nil, nil, fmt.Errorf("%s is a directory, not a file", r.unspec(s))
		case hasControl(s):
			bad = append(bad, r.unspec(s))
		default:
			toAdd = append(toAdd, s)
			toCommit = append(toCommit, s)
		}
	}
	if len(bad) > 0 {
		r.log.Warn("not committing files whose names have a control character; rename them", "files", bad)
	}
	if len(gone) == 0 {
		return toAdd, toCommit, nil
	}
	all := func(string) bool { return true }
	repo, done, err := r.open()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	head, err := r.headFiles(repo, all)
	if err != nil {
		return nil, nil, err
	}
	staged, _, err := r.indexFiles(all)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range gone {
		_, inHead := head[r.unspec(s)]
		_, inIndex := staged[r.unspec(s)]
		if inIndex {
			toAdd = append(toAdd, s)
		}
		if inHead {
			toCommit = append(toCommit, s)
		}
	}
	sort.Strings(toAdd)
	sort.Strings(toCommit)
	return toAdd, toCommit, nil
}

// withoutIgnored removes from toCommit the specs that add left out of
// kept because the ignore rules exclude them.
func withoutIgnored(toCommit, added, kept []string) []string {
	if len(kept) == len(added) {
		return toCommit
	}
	ignored := make(map[string]bool)
	for _, s := range added {
		ignored[s] = true
	}
	for _, s := range kept {
		delete(ignored, s)
	}
	out := toCommit[:0:0]
	for _, s := range toCommit {
		if !ignored[s] {
			out = append(out, s)
		}
	}
	return out
}

// add stages specs (new, modified and deleted files). When some of them are
// new files the ignore rules exclude, git stages the others and complains;
// add then returns the specs without the ignored ones.
func (r *Repo) add(ctx context.Context, specs []string) ([]string, error) {
	_, err := r.run(ctx, nulJoin(specs), literal, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul")
	var ce *cliError
	if err == nil || !errors.As(err, &ce) || errors.Is(err, ErrBusy) ||
		!strings.Contains(ce.stderr, "ignored by one of your .gitignore files") {
		return specs, err
	}
	ignored, ierr := r.checkIgnore(ctx, specs)
	if ierr != nil {
		return nil, ierr
	}
	kept := specs[:0:0]
	for _, s := range specs {
		if !ignored[s] {
			kept = append(kept, s)
		}
	}
	r.log.Debug("not committing files the repository ignores", "files", len(specs)-len(kept))
	return kept, nil
}

// summaryRE matches the first line of git commit's summary, printed with
// core.abbrev=no: "[main (root-commit) <full hash>] subject". Branch names
// hold no spaces. Hooks' output goes to stderr and cannot interfere.
var summaryRE = regexp.MustCompile(`(?m)^\[\S+(?: \([a-z-]+\))? ([0-9a-f]{40,64})\] `)

// commit runs git commit limited to specs and returns the new commit's hash,
// read from git's own summary line (HEAD itself may already have moved on).
func (r *Repo) commit(ctx context.Context, msg string, specs []string) (string, error) {
	args := append([]string{literal, "-c", "core.abbrev=no"}, r.identity...)
	args = append(args, "commit", "--no-verify", "--untracked-files=no", "-m", msg,
		"--pathspec-from-file=-", "--pathspec-file-nul")
	out, err := r.run(ctx, nulJoin(specs), args...)
	var ce *cliError
	if errors.As(err, &ce) && ce.code == 1 && !errors.Is(err, ErrBusy) &&
		strings.Contains(ce.stdout, "to commit") {
		// "nothing to commit", "nothing added to commit", "no changes added to commit"
		return "", ErrNothingToCommit
	}
	if err != nil {
		return "", err
	}
	m := summaryRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("git commit: cannot find the new commit in %q", firstLine(string(out)))
	}
	return string(m[1]), nil
}

// CommitMessage returns memoryd's subject for committing paths:
// "memory: update a.md, b.md", listing at most three base names and then
// "and N more".
func CommitMessage(paths []string) string {
	const listed = 3
	names := make([]string, 0, listed)
	for i, p := range paths {
		if i == listed {
			break
		}
		name := path.Base(p)
		if hasControl(name) {
			name = strconv.Quote(name) // a deleted name with a newline must not split the subject
		}
		names = append(names, name)
	}
	msg := "memory: update " + strings.Join(names, ", ")
	if len(paths) > listed {
		msg += " and " + strconv.Itoa(len(paths)-listed) + " more"
	}
	if len(paths) == 0 {
		msg = "memory: update"
	}
	return msg
}

// HandEditsMessage is the whole message of the daemon's commit of paths,
// edits a person made: CommitMessage's subject with the trailers that say
// so.
func HandEditsMessage(paths []string) string {
	return commitmsg.Message{Subject: CommitMessage(paths), Kind: commitmsg.KindUpdate, Writer: commitmsg.Person}.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
