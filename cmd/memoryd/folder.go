package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/txn"
	"github.com/memoryd/memoryd/internal/usage"
)

// folder is a resolved memory folder with its state folder and repository.
type folder struct {
	cfg      config.Config
	cfgPath  string
	dir      string // real path
	stateDir string
	repo     *gitstore.Repo // nil when there is no usable repository
	repoErr  error          // why repo is nil
	log      *slog.Logger
	getenv   func(string) string // the command's environment
	// modelResolved is set once the models were taken from OpenCode's
	// configuration (see openCodeModel).
	modelResolved bool
}

// openFolder loads the configuration and resolves the memory folder, which
// must exist, and its repository.
func openFolder(e env, g globalFlags) (*folder, error) {
	f, err := readFolder(e, g)
	if err != nil {
		return nil, err
	}
	f.repo, f.repoErr = gitstore.Open(f.dir, gitstore.Options{Author: f.cfg.Git.Author, Logger: f.log, Screen: secretScreen(f.dir)})
	if f.repoErr != nil {
		f.repo = nil
	}
	return f, nil
}

// readFolder is openFolder without the repository, for the commands that
// only read the files (search, list, show): opening the repository costs
// two git processes.
func readFolder(e env, g globalFlags) (*folder, error) {
	cfg, path, err := loadConfig(e, g)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(cfg.MemoryDir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("memory folder %s does not exist (create it, or run 'memoryd install --memory-dir %s')", cfg.MemoryDir, cfg.MemoryDir)
		}
		return nil, fmt.Errorf("memory folder: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("memory folder %s is not a folder", cfg.MemoryDir)
	}
	dir, err := state.RealPath(cfg.MemoryDir)
	if err != nil {
		return nil, err
	}
	sd, err := state.Dir(stateHome(e), dir)
	if err != nil {
		return nil, err
	}
	return &folder{cfg: cfg, cfgPath: path, dir: dir, stateDir: sd, log: newLogger(e.stderr, cfg.LogLevel), getenv: e.getenv,
		repoErr: errors.New("not opened")}, nil
}

// gitProblem explains why commits are off, in words for status and logs.
func (f *folder) gitProblem() string {
	switch {
	case f.repoErr == nil:
		return ""
	case errors.Is(f.repoErr, gitstore.ErrNoRepo):
		return "the memory folder is not inside a git repository: commits, compaction and extraction are off (run 'git init' in the notes folder)"
	case errors.Is(f.repoErr, gitstore.ErrNoGit):
		return "the git command was not found on PATH: commits, compaction and extraction are off"
	default:
		return "git: " + f.repoErr.Error()
	}
}

// needRepo returns the repository or a clear error for commands that write history.
func (f *folder) needRepo() (*gitstore.Repo, error) {
	if f.repo == nil {
		return nil, errors.New(f.gitProblem())
	}
	return f.repo, nil
}

// secretScreen keeps a file that holds a secret out of every commit: the
// last line of defence for hand-written files, which no quality gate saw.
// The answer names the file, the line and how to let it in (see screen.go).
//
// Only what a person or a model wrote is screened. The files memoryd
// generates — the indexes MEMORY.md and MEMORY.<slug>.md, PROTOCOL.md,
// .gitattributes — are built from the facts and are never held on their
// own: a false positive in an index would keep the index out of every
// commit, and its uncommitted change would stop the user's next `git pull`.
// An index is held only while it repeats the very secret of a fact the
// screen holds (a secret in a hand-written description), and then for as
// long as that fact is. A file that cannot be screened — too large, not a
// regular file, unreadable — is held too: the screen fails closed.
func secretScreen(dir string) func(rel string) string {
	return func(rel string) string {
		switch {
		case rel == index.ProtocolFile || rel == index.AttributesFile:
			return ""
		case index.GeneratedFile(dir, rel):
			// An index memoryd generated, not a person's MEMORY.notes.md,
			// which is screened like any file they wrote.
			return screenIndex(dir, rel)
		}
		return screenRead(dir, rel).reason(rel)
	}
}

// writer is the fact writer for the folder; who names it in the lock and in
// commit messages ("cli", "import"). Each write brings the search index up
// to the files (search.Update), so a search right after it finds the change.
func (f *folder) writer(who string) *facts.Writer {
	return facts.New(facts.Options{Folder: f.txn(), Who: who})
}

// modelWriter is writer for an agent's saves through the MCP server: what
// it writes is a model's text.
func (f *folder) modelWriter(who string) *facts.Writer {
	return facts.New(facts.Options{Folder: f.txn(), Who: who, Model: true})
}

// txn is the folder's write transaction: every write of a memory file goes
// through it, with the configured index budget.
func (f *folder) txn() *txn.Folder {
	return txn.New(txn.Options{Dir: f.dir, StateDir: f.stateDir, Repo: f.repo,
		Budget: index.Budget{Lines: f.cfg.Index.MaxLines, Bytes: f.cfg.Index.MaxBytes}, Search: f.updateSearch,
		Uses: usage.Open(f.stateDir).Active})
}

// updateSearch brings the folder's search index, when there is one, up to
// snap, a scan made after a write.
func (f *folder) updateSearch(ctx context.Context, snap index.Snapshot) error {
	return search.Update(ctx, f.stateDir, f.dir, snap)
}
