package main

import (
	"errors"
	"log/slog"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/facts"
	memfolder "github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
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
	mem      *memfolder.Folder   // the folder opened (folder.Open)
	// modelResolved is set once the models were taken from OpenCode's
	// configuration (see openCodeModel).
	modelResolved bool
}

// openFolder loads the configuration and opens the memory folder, which
// must exist, and its repository (folder.Open).
func openFolder(e env, g globalFlags) (*folder, error) {
	return loadFolder(e, g, false)
}

// repoFolder is openFolder for the commands that work on history (undo,
// sync, history): without a repository it fails with the reason.
func repoFolder(e env, g globalFlags) (*folder, error) {
	f, err := openFolder(e, g)
	if err != nil {
		return nil, err
	}
	if _, err := f.needRepo(); err != nil {
		return nil, err
	}
	return f, nil
}

// readFolder is openFolder without the repository, for the commands that
// only read the files (search, list, show): opening the repository costs
// two git processes.
func readFolder(e env, g globalFlags) (*folder, error) {
	return loadFolder(e, g, true)
}

// loadFolder loads the configuration and opens the folder it names.
func loadFolder(e env, g globalFlags, withoutRepo bool) (*folder, error) {
	cfg, path, err := loadConfig(e, g)
	if err != nil {
		return nil, err
	}
	log := newLogger(e.logWriter(), cfg.LogLevel)
	mf, err := memfolder.Open(memfolder.Options{Dir: cfg.MemoryDir, StateHome: stateHome(e), Author: cfg.Git.Author, Logger: log,
		Budget: index.Budget{Lines: cfg.Index.MaxLines, Bytes: cfg.Index.MaxBytes}, WithoutRepo: withoutRepo})
	if err != nil {
		return nil, err
	}
	e.log.Attach(mf.StateDir())
	return &folder{cfg: cfg, cfgPath: path, dir: mf.Dir(), stateDir: mf.StateDir(), repo: mf.Repo(), repoErr: mf.RepoErr(),
		log: log, getenv: e.getenv, mem: mf}, nil
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
func (f *folder) txn() *memfolder.Folder { return f.mem }
