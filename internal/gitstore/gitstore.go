// Package gitstore keeps a memory folder's history in the git repository
// that holds it.
//
// Writes (add, commit, restore) go through the git CLI, because only the CLI
// takes git's own lock files: a daemon writing through go-git beside a user's
// `git pull` drops commits and tears the index. Reads (discovery, HEAD, the
// committed tree of the memory folder, history) go through go-git, in process,
// so the frequent "is there anything to commit?" question costs no process.
// The repository is opened anew for every read because a user's `git repack`
// or `git gc` invalidates the pack files an open repository holds.
//
// A Repo is safe for concurrent use; git's lock files, not the Repo, keep
// concurrent writers (memoryd and the user) apart, and a writer that loses
// that race gets an error wrapping ErrBusy.
package gitstore

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

var (
	// ErrNoRepo means the memory folder is not inside a git work tree.
	ErrNoRepo = errors.New("not inside a git repository")
	// ErrNoGit means no usable git binary was found: reads still work, but
	// Commit and Restore fail with it.
	ErrNoGit = errors.New("git binary not available")
	// ErrBusy means git is in use or the repository is mid-operation
	// (merge, rebase, conflicts, detached HEAD). Nothing was committed;
	// retry later.
	ErrBusy = errors.New("repository busy")
	// ErrNothingToCommit means the given paths already match HEAD.
	ErrNothingToCommit = errors.New("nothing to commit")
)

// Options configure Open.
type Options struct {
	// Author is "Name <email>" for memoryd's commits. Empty: the
	// repository's own user.name and user.email, else FallbackAuthor.
	Author string
	// GitBin is the git executable; empty means "git" looked up on PATH.
	GitBin string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Screen, when set, is asked about every file CommitPending and
	// CommitPaths are about to commit that exists on disk; a non-empty
	// answer keeps that file out of the commit (the rest goes in) and is
	// reported in Committed.Held. memoryd screens for secrets with it: a
	// hand-written API key must never reach the history.
	Screen func(rel string) (reason string)
}

// Repo is a memory folder inside a git work tree. It holds no open files;
// every method opens what it needs.
type Repo struct {
	dir    string // memory folder, absolute, symlinks resolved
	root   string // work tree top, absolute, symlinks resolved
	rel    string // dir relative to root, slash-separated, "" if same
	gitDir string // per-worktree git directory (HEAD, index, MERGE_HEAD live here)
	// commonDir is a linked worktree's shared git directory (objects,
	// refs), "" when gitDir is the whole repository.
	commonDir string

	gitBin   string   // the git executable
	gitErr   error    // wraps ErrNoGit when writes are impossible
	identity []string // "-c user.name=… -c user.email=…", or nil to use git's own
	author   string   // the identity commits carry, for logs and status

	log    *slog.Logger
	screen func(rel string) string // see Options.Screen; nil screens nothing

	// hashes remembers work-tree files' blob hashes by size and mtime
	// (see workHash).
	hashes struct {
		sync.Mutex
		m map[string]hashEntry
	}

	// cache holds HEAD's memory folder files by commit hash (see headFiles).
	cache struct {
		sync.Mutex
		commit plumbing.Hash
		files  map[string]headEntry // read-only once stored
	}
}

// Open finds the git work tree enclosing memoryDir (following symlinks in
// memoryDir first) and resolves the commit author once.
//
// It returns an error wrapping ErrNoRepo when there is no enclosing
// repository. When the repository is found but git cannot write to it —
// no git binary, one older than 2.31, or one that refuses the repository
// (safe.directory) — Open returns a usable *Repo together with an error
// wrapping ErrNoGit: Root, Rel, Busy, InOperation, Changes and History
// work, Commit and Restore fail with that error. When the CLI would use
// another work tree than go-git reads (core.worktree), Open fails.
func Open(memoryDir string, opts Options) (*Repo, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "gitstore")

	abs, err := filepath.Abs(memoryDir)
	if err != nil {
		return nil, fmt.Errorf("open memory folder: %w", err)
	}
	dir, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open memory folder: %w", err)
	}
	r := &Repo{dir: dir, log: log, screen: opts.Screen}
	if err := r.discover(); err != nil {
		return nil, err
	}

	r.gitBin, r.gitErr = findGit(opts.GitBin)
	if r.gitErr == nil {
		r.gitErr = r.checkVersion()
	}
	if r.gitErr == nil {
		if r.gitErr = r.checkCLIView(); r.gitErr != nil && !errors.Is(r.gitErr, ErrNoGit) {
			return nil, r.gitErr
		}
	}
	if err := r.resolveAuthor(opts.Author); err != nil {
		return nil, err
	}
	if r.gitErr != nil {
		return r, r.gitErr
	}
	log.Debug("opened", "root", r.root, "rel", r.rel, "gitdir", r.gitDir, "author", r.author)
	return r, nil
}

// discover fills root, rel and gitDir from go-git's view of the repository.
func (r *Repo) discover() error {
	repo, err := openRepo(r.dir)
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return fmt.Errorf("open repository for %s: %w (%w)", r.dir, ErrNoRepo, err)
	}
	r.root = wt.Filesystem.Root()
	st, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return fmt.Errorf("open repository for %s: unexpected storage %T", r.dir, repo.Storer)
	}
	r.gitDir = st.Filesystem().Root()
	if b, err := os.ReadFile(filepath.Join(r.gitDir, "commondir")); err == nil {
		r.commonDir = strings.TrimSpace(string(b))
		if !filepath.IsAbs(r.commonDir) {
			r.commonDir = filepath.Join(r.gitDir, r.commonDir)
		}
	}

	rel, err := filepath.Rel(r.root, r.dir)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return fmt.Errorf("memory folder %s is outside work tree %s: %w", r.dir, r.root, ErrNoRepo)
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		rel = ""
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" {
			return fmt.Errorf("memory folder %s is inside a .git directory: %w", r.dir, ErrNoRepo)
		}
	}
	r.rel = rel
	return nil
}

// openRepo opens the repository enclosing dir the way git does (walking
// up to the first .git, following a .git file and a linked worktree's
// commondir).
func openRepo(dir string) (*git.Repository, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{
		DetectDotGit:          true,
		EnableDotGitCommonDir: true,
	})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("open repository for %s: %w", dir, ErrNoRepo)
	}
	if err != nil {
		return nil, fmt.Errorf("open repository for %s: %w", dir, err)
	}
	return repo, nil
}

// open opens the repository found by Open for one read; the caller must
// call done when finished. Nothing is kept between operations, because a
// user's `git repack` or `git gc` replaces the pack files an open
// repository holds. Within one operation, pack files stay open
// (KeepDescriptors): go-git otherwise reopens the pack for every object,
// which made History ~15 times slower on a 2,000-commit repository.
func (r *Repo) open() (repo *git.Repository, done func(), err error) {
	var fs billy.Filesystem = osfs.New(r.gitDir)
	if r.commonDir != "" {
		fs = dotgit.NewRepositoryFilesystem(fs, osfs.New(r.commonDir))
	}
	st := filesystem.NewStorageWithOptions(fs, cache.NewObjectLRUDefault(),
		filesystem.Options{KeepDescriptors: true})
	repo, err = git.Open(st, osfs.New(r.root))
	if err != nil {
		st.Close()
		if errors.Is(err, git.ErrRepositoryNotExists) {
			err = ErrNoRepo
		}
		return nil, nil, fmt.Errorf("open repository %s: %w", r.root, err)
	}
	return repo, func() { st.Close() }, nil
}

// Root returns the top of the work tree, absolute with symlinks resolved.
func (r *Repo) Root() string { return r.root }

// Rel returns the memory folder relative to Root, slash-separated, or ""
// when the memory folder is the work tree's top.
func (r *Repo) Rel() string { return r.rel }
