package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/memoryd/memoryd/compactor"
	"github.com/memoryd/memoryd/daemon"
	"github.com/memoryd/memoryd/gitstore"
	"github.com/memoryd/memoryd/index"
	"github.com/memoryd/memoryd/llm"
	"github.com/memoryd/memoryd/protocol"
	"github.com/memoryd/memoryd/state"
)

func init() {
	register(&command{
		name:    "compact",
		args:    "[--dry-run] [--force]",
		summary: "Run one compaction pass now (takes the write lock).",
		flags: func(fs *flag.FlagSet) {
			fs.Bool("dry-run", false, "ask the model and print the validated plan; change nothing, commit nothing")
			fs.Bool("force", false, "run even when compaction is disabled (compact.enabled) or the folder has fewer files than compact.min_entries")
		},
		run: runCompact,
	})
	register(&command{
		name:    "undo",
		args:    "[COMMIT]",
		summary: "Restore the memory folder to before the last (or the given) compaction, as a new commit.",
		run:     runUndo,
	})
}

// applyDelayEnv is a test hook: milliseconds the compactor pauses before
// each op it applies, so that an end-to-end test can kill the process in
// the middle of applying. Never set it in real use.
const applyDelayEnv = "MEMORYD_TEST_APPLY_DELAY_MS"

// compactJob adapts the compactor to the daemon.
type compactJob struct{ c *compactor.Compactor }

// Compact runs one pass; a pass with nothing to change is
// daemon.ErrNothingToDo.
func (j compactJob) Compact(ctx context.Context) error {
	_, err := j.c.Compact(ctx)
	if errors.Is(err, compactor.ErrNothingToDo) {
		return daemon.ErrNothingToDo
	}
	return err
}

// newCompactor is the daemon's compactor for f.
func newCompactor(f *folder, c llm.Completer) *compactor.Compactor {
	return compactor.New(compactorOptions(f, c, "memoryd run", os.Getenv))
}

func compactorOptions(f *folder, c llm.Completer, who string, getenv func(string) string) compactor.Options {
	opts := compactor.Options{
		Dir:        f.dir,
		StateDir:   f.stateDir,
		Owner:      fmt.Sprintf("pid %d, %s (compaction)", os.Getpid(), who),
		LLM:        c,
		Model:      f.cfg.Compact.Model,
		Budget:     f.cfg.Compact.Budget,
		MinEntries: f.cfg.Compact.MinEntries,
		Logger:     f.log,
	}
	if f.repo != nil {
		opts.Git = f.repo
	}
	if ms, err := strconv.Atoi(getenv(applyDelayEnv)); err == nil && ms > 0 {
		opts.OpDelay = time.Duration(ms) * time.Millisecond
	}
	return opts
}

// runCompact is `memoryd compact`. --force overrides compact.enabled and
// compact.min_entries (a pass still needs two files); it never overrides
// the repository, lock, busy and plan checks.
func runCompact(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return usageError{"unexpected arguments: " + fmt.Sprint(args)}
	}
	dry, force := flagString(fs, "dry-run") == "true", flagString(fs, "force") == "true"
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	if !f.cfg.Compact.Enabled && !force {
		return errors.New("compaction is disabled (compact.enabled / MEMORY_COMPACT_ENABLED); run with --force to compact anyway")
	}
	if f.repo == nil && !dry {
		return fmt.Errorf("%w; %s", compactor.ErrNoGit, f.gitProblem())
	}
	client, err := needLLM(f)
	if err != nil {
		return err
	}
	if c, ok := client.(io.Closer); ok {
		defer c.Close()
	}
	opts := compactorOptions(f, client, "memoryd compact", e.getenv)
	if force {
		opts.MinEntries = 0
	}
	c := compactor.New(opts)
	var res *compactor.Result
	if dry {
		res, err = c.Plan(ctx)
	} else {
		res, err = c.Compact(ctx)
	}
	printResult(e.stdout, res, err)
	if !dry && (err == nil || errors.Is(err, compactor.ErrNothingToDo)) {
		// The daemon's triggers start counting again from this pass.
		if _, serr := daemon.UpdateCompactState(f.stateDir, time.Now(), daemon.RecordPass(time.Now())); serr != nil {
			f.log.Warn("record the compaction pass", "err", serr)
		}
	}
	switch {
	case errors.Is(err, compactor.ErrNothingToDo):
		return nil
	case errors.Is(err, state.ErrLocked):
		return fmt.Errorf("another compaction or commit is running for this folder, try again later: %w", err)
	}
	return err
}

// printResult tells the user what a pass did, or would do.
func printResult(w io.Writer, res *compactor.Result, err error) {
	if res == nil {
		return
	}
	if res.Calls > 0 {
		fmt.Fprintf(w, "asked the model: %d request(s) for %d files, %d characters sent, %s\n",
			res.Calls, res.Files, res.CharsSent, res.LLMTime.Round(time.Millisecond))
	}
	for _, file := range res.TooLarge {
		fmt.Fprintf(w, "not sent, larger than compact.budget: %s\n", file)
	}
	for _, p := range res.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	applied, skipped := "applied", "skipped"
	if res.DryRun {
		applied, skipped = "would apply", "would skip"
	}
	for _, op := range res.Applied {
		fmt.Fprintf(w, "%s: %s\n", applied, op)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "%s: %s: %s\n", skipped, s.Op, s.Reason)
	}
	switch {
	case errors.Is(err, compactor.ErrNothingToDo):
		fmt.Fprintf(w, "%v\n", err)
	case err != nil:
	case res.DryRun:
		fmt.Fprintf(w, "dry run, nothing changed: would have %s\n", res.Summary())
	default:
		fmt.Fprintf(w, "compaction: %s\ncheckpoint %s, compaction commit %s (undo with 'memoryd undo')\n",
			res.Summary(), short(res.Checkpoint), short(res.Commit))
	}
}

func short(hash string) string { return hash[:min(12, len(hash))] }

// undoDepth is how many of the memory folder's commits undo searches.
const undoDepth = 1000

// runUndo is `memoryd undo [COMMIT]`: the memory folder goes back to the
// checkpoint before the most recent compaction (or before the given
// compaction, or to the given checkpoint), recorded as a new commit.
// Pending changes are committed first, so the state undo replaces stays in
// history; MEMORY.md is rebuilt afterwards.
func runUndo(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	if len(args) > 1 {
		return usageError{"at most one commit"}
	}
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	repo, err := f.needRepo()
	if err != nil {
		return err
	}
	lock, err := state.TryLock(f.stateDir, state.WriteLock, fmt.Sprintf("pid %d, memoryd undo", os.Getpid()))
	if err != nil {
		return fmt.Errorf("another compaction or commit is running for this folder, try again later: %w", err)
	}
	defer lock.Unlock()
	if err := repo.Busy(); err != nil {
		return err
	}
	hist, err := repo.History(undoDepth)
	if err != nil {
		return err
	}
	t, err := undoTarget(hist, args)
	if err != nil {
		return err
	}
	committed, err := commitPending(ctx, repo, "commit pending changes before undo")
	if err != nil {
		return err
	}
	if committed {
		t.later++
	}
	hash, err := repo.Restore(ctx, t.rev, t.message)
	if errors.Is(err, gitstore.ErrNothingToCommit) {
		fmt.Fprintf(e.stdout, "nothing to undo: the memory folder already matches %s\n", t.what)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "restored the memory folder to %s in commit %s\n", t.what, short(hash))
	if t.later > 0 {
		fmt.Fprintf(e.stdout, "note: %d later commit(s) to the memory folder were undone too; they stay in history ('memoryd history')\n", t.later)
	}
	return rebuildAndCommit(ctx, f, repo)
}

// undoSpec is what undo restores.
type undoSpec struct {
	rev     string // for git rev-parse
	what    string // for people
	message string // the restore commit's message
	later   int    // commits after the undone one that touched the folder
}

// undoTarget picks the restore point in hist (newest first): without
// args, the most recent compaction (its parent, the checkpoint) or
// checkpoint (after a pass that died before its compaction commit); with a
// commit, that compaction's parent or that checkpoint.
func undoTarget(hist []gitstore.Commit, args []string) (undoSpec, error) {
	for i, c := range hist {
		if len(args) == 1 {
			arg := strings.ToLower(args[0])
			if len(arg) < 4 || !strings.HasPrefix(c.Hash, arg) {
				continue
			}
		}
		switch {
		case strings.HasPrefix(c.Subject, compactor.CompactionPrefix):
			return undoSpec{rev: c.Hash + "^", what: "the checkpoint before compaction " + short(c.Hash),
				message: "memory: undo compaction " + short(c.Hash), later: i}, nil
		case c.Subject == compactor.CheckpointSubject:
			return undoSpec{rev: c.Hash, what: "checkpoint " + short(c.Hash),
				message: "memory: undo to checkpoint " + short(c.Hash), later: i}, nil
		case len(args) == 1:
			return undoSpec{}, fmt.Errorf("commit %s (%q) is neither a compaction nor a checkpoint; undo restores only those (see 'memoryd history')", short(c.Hash), c.Subject)
		}
	}
	if len(args) == 1 {
		return undoSpec{}, fmt.Errorf("commit %q is not among the last %d commits of the memory folder (see 'memoryd history')", args[0], undoDepth)
	}
	return undoSpec{}, errors.New("no compaction to undo: 'memoryd history' lists none")
}

// commitPending commits what differs from HEAD in the memory folder and
// reports whether it made a commit; why prefixes an error.
func commitPending(ctx context.Context, repo *gitstore.Repo, why string) (bool, error) {
	changes, err := repo.Changes(index.Tracked)
	if err != nil || len(changes) == 0 {
		return false, err
	}
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.Path
	}
	_, err = repo.Commit(ctx, gitstore.CommitMessage(paths), paths)
	if errors.Is(err, gitstore.ErrNothingToCommit) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", why, err)
	}
	return true, nil
}

// rebuildAndCommit rebuilds MEMORY.md after a restore, writes
// .gitattributes and PROTOCOL.md if the restored checkpoint predates them
// (as the daemon does whenever they are missing), and commits what changed.
func rebuildAndCommit(ctx context.Context, f *folder, repo *gitstore.Repo) error {
	if _, err := index.WriteAttributes(f.dir); err != nil {
		return err
	}
	if _, err := protocol.Ensure(f.dir); err != nil {
		return err
	}
	st := index.NewStore(f.dir)
	if err := st.Scan(); err != nil {
		return err
	}
	if _, err := st.WriteIndex(); err != nil {
		return err
	}
	_, err := commitPending(ctx, repo, "commit the rebuilt index")
	return err
}
