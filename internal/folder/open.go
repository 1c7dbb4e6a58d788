package folder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/usage"
	"github.com/memoryd/memoryd/internal/verdicts"
)

// Options say which memory folder to open and how to write it.
type Options struct {
	Dir string // the memory folder as configured; it must exist
	// StateDir is the folder's state folder (the write lock, the search
	// index, usage); "" puts it under StateHome (state.Dir).
	StateDir  string
	StateHome string
	// Author is "Name <email>" for memoryd's commits (git.author); empty:
	// the repository's own identity (gitstore.Options.Author).
	Author string
	Logger *slog.Logger // nil discards
	Budget index.Budget // index.max_lines and index.max_bytes
	// Wait is how long Begin waits for the write lock; 0 means 10 s.
	Wait time.Duration
	// WithoutRepo leaves the repository closed, for the commands that only
	// read the files (search, list, show): opening it costs two git
	// processes. Such a Folder writes without committing.
	WithoutRepo bool
	// Search, when set, replaces the folder's search index (search.Update)
	// as what each transaction hands the folder as it left it. The search
	// index is a cache the next search repairs: its failure fails nothing.
	Search func(context.Context, index.Snapshot) error
}

// Open opens the memory folder: it resolves its real path and its state
// folder, and opens its repository with the commit secret screen on (see
// screen.go; there is no way to leave it off). A folder outside git, or
// without git on PATH, opens without a repository: Repo is nil and RepoErr
// says why. Open fails only when the folder itself cannot be used.
func Open(opts Options) (*Folder, error) {
	fi, err := os.Stat(opts.Dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("memory folder %s does not exist (create it, or run 'memoryd install --memory-dir %s')", opts.Dir, opts.Dir)
	case err != nil:
		return nil, fmt.Errorf("memory folder: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("memory folder %s is not a folder", opts.Dir)
	}
	dir, err := state.RealPath(opts.Dir)
	if err != nil {
		return nil, err
	}
	f := &Folder{dir: dir, stateDir: opts.StateDir, budget: opts.Budget, wait: opts.Wait, search: opts.Search}
	if f.stateDir == "" {
		if f.stateDir, err = state.Dir(opts.StateHome, dir); err != nil {
			return nil, err
		}
	}
	if f.wait <= 0 {
		f.wait = 10 * time.Second
	}
	if f.search == nil {
		f.search = func(ctx context.Context, snap index.Snapshot) error {
			return search.Update(ctx, f.stateDir, f.dir, snap)
		}
	}
	f.uses = usage.Open(f.stateDir).Active
	f.verdicts = verdicts.Open(f.stateDir, state.VerdictsFile)
	f.gate = NewGate(f.stateDir)
	f.gate.verdicts = f.verdicts
	f.repoErr = errors.New("not opened")
	if !opts.WithoutRepo {
		f.repo, f.repoErr = gitstore.Open(dir, gitstore.Options{Author: opts.Author, Logger: opts.Logger, Screen: secretScreen(dir)})
		if f.repoErr != nil {
			f.repo = nil
		}
	}
	return f, nil
}
