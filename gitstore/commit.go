package gitstore

import (
	"context"
	"errors"
	"fmt"
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
// the memory folder is ever touched. Paths gone from disk that HEAD does not
// have, and new paths the user's ignore rules exclude, are skipped.
//
// Errors: the ErrNoGit error of Open when git cannot be used; an error wrapping ErrBusy when the
// repository is busy (see Busy) or another git process won a lock race
// between the two steps — nothing was committed, retry later (the paths may
// remain staged, which the retry completes); ErrNothingToCommit when the
// paths match HEAD. The user's pre-commit and commit-msg hooks are skipped
// (--no-verify): memoryd commits unattended, nobody could answer a hook's
// complaint, a failing hook would stall every later commit, and message
// checkers reject "memory: …" subjects. Post-commit hooks still run.
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
	if specs, err = r.dropVanished(specs); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if len(specs) == 0 {
		return "", ErrNothingToCommit
	}
	if specs, err = r.add(ctx, specs); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if len(specs) == 0 {
		return "", ErrNothingToCommit
	}
	hash, err := r.commit(ctx, msg, specs)
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	r.log.Debug("committed", "commit", hash, "files", len(specs), "subject", firstLine(msg))
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

// dropVanished removes paths that are neither on disk nor in HEAD: there is
// nothing to add or delete for them, and git would reject the pathspec. A
// directory is refused: as a pathspec it would take in every file below
// it, editor leftovers included.
func (r *Repo) dropVanished(specs []string) ([]string, error) {
	var missing []int
	for i, s := range specs {
		fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(s)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, i)
		case err != nil:
			return nil, err
		case fi.IsDir():
			return nil, fmt.Errorf("%s is a directory, not a file", r.unspec(s))
		}
	}
	if len(missing) == 0 {
		return specs, nil
	}
	repo, done, err := r.open()
	if err != nil {
		return nil, err
	}
	defer done()
	head, err := r.headFiles(repo, func(string) bool { return true })
	if err != nil {
		return nil, err
	}
	drop := make(map[int]bool)
	for _, i := range missing {
		if _, ok := head[r.unspec(specs[i])]; !ok {
			drop[i] = true
		}
	}
	kept := specs[:0:0]
	for i, s := range specs {
		if !drop[i] {
			kept = append(kept, s)
		}
	}
	return kept, nil
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
		names = append(names, path.Base(p))
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

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
