// Package compactor runs one compaction pass over a memory folder: it asks a
// language model for a plan (merge near-duplicates, delete stale facts,
// rewrite one in place, flag contradictions), validates the plan, takes a
// git checkpoint, applies what is safe, rebuilds MEMORY.md and records the
// result in one compaction commit. It writes through the folder's write
// transaction (package txn), and plans without it: a person's or an agent's
// write never waits for the model.
//
// A pass, in order:
//
//  1. Take the pass lock (PassLock in the state folder), so that two passes
//     never run at once in any process; a second one is refused at once,
//     naming the holder. It is not the write lock: other writers go on.
//     No repository: no pass (ErrNoGit), because nothing could undo it. A
//     git operation of the user's under way (a merge, a rebase, a detached
//     HEAD): no pass, and the model is not asked.
//  2. Scan the folder without the write lock (folder.Folder.Snapshot). Fewer
//     than Options.MinEntries (at least 2) memory files: ErrNothingToDo,
//     without asking the model.
//  3. Deterministic dedupe: files of the same type whose bodies have the same
//     canonical text (index.Canonical) are merged without the model: the
//     first (a readonly one if there is one, else the first by name) is kept
//     as it is and the others are removed.
//  4. Ask the model. The whole store goes in one request when its text fits
//     Options.Budget; otherwise related files (same type, shared rare words)
//     are packed into batches under the budget, every file in exactly one.
//     A file whose text alone exceeds the budget is not sent (see
//     Result.TooLarge).
//  5. Validate every op against the scan (see Compact for the rules); ops
//     that fail are skipped and logged, a batch's plan that would remove too
//     many files is refused whole.
//  6. Begin the write transaction (folder.Folder.Begin: the write lock, waiting
//     for a writer that holds it, and no git operation of the user's), and
//     hold it to the end of the pass.
//  7. Checkpoint: the indexes are settled, .gitattributes and PROTOCOL.md
//     written if missing, and the folder's pending changes are committed
//     as "memory: checkpoint before compaction". It is taken after the
//     model answered, so a hand edit made during a slow call is in the
//     checkpoint and undo never loses it. With nothing pending, the last
//     commit that touched the folder is the checkpoint (git cannot record an
//     empty commit through gitstore, and `memoryd history` would not list
//     one).
//  8. Apply the ops through the transaction, each after checking that its
//     files still hold the bytes the plan was made from (content hash): a
//     fact written or edited while the model was thinking makes the op that
//     read it skip. Every write is atomic.
//  9. Commit through the transaction (Tx.Commit: the indexes settled with
//     the configured budget, search, the commit) as "memory: compaction
//     (merged M, deleted D, rewrote R, flagged F)". The compaction commit's
//     parent is the checkpoint.
//
// The compactor decides nothing about when to run: the daemon and the
// `memoryd compact` command call it.
package compactor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/state"
)

// PassLock is the lock file in the state folder that a pass holds from
// start to end, so that passes run one at a time across processes. Writers
// of facts never take it.
const PassLock = "compaction-pass.lock"

// DefaultBudget is the most characters of memory file text one request
// carries when Options.Budget is zero.
const DefaultBudget = 60000

// Task is the llm.Request task of compaction calls.
const Task = "compact"

var (
	// ErrNothingToDo means the pass ran and had nothing to change (also:
	// too few files to compare). No commit was made.
	ErrNothingToDo = errors.New("nothing to compact")
	// ErrNoGit means the memory folder has no usable git repository.
	ErrNoGit = errors.New("no git repository: compaction needs a checkpoint")
	// ErrBoundReached means the passes of the last 24 hours removed or cut
	// down as many files as the bound allows: unattended compaction waits
	// for a person (Options.Force).
	ErrBoundReached = errors.New("compaction paused")
	// ErrRolledBack means the compaction commit failed and the folder was
	// put back to the checkpoint (or, when the error says so, could not be
	// put back whole).
	ErrRolledBack = errors.New("compaction rolled back to the checkpoint")
	// ErrRefused means a plan would have removed more files than the bound
	// allows and was refused whole, and nothing else was left to apply.
	ErrRefused = errors.New("plan refused")
)

// Git is what a pass asks of the repository besides the transaction's
// commit and checkpoint: the check before planning, the unstaging of a
// rollback, and the reads; *gitstore.Repo has it.
type Git interface {
	Operation() (gitstore.Blocker, bool)
	Unstage(ctx context.Context, paths []string) error
	Ignored(ctx context.Context, paths []string) (map[string]bool, error)
	History(n int) ([]gitstore.Commit, error)
}

// Options configure a Compactor.
type Options struct {
	// Folder is the memory folder's write transaction: the pass scans
	// through it, and writes and commits only through it. Its repository
	// is the one checkpointed; none means Compact fails with ErrNoGit.
	Folder *folder.Folder
	// StateDir is the folder's state directory: the pass lock and the
	// compaction state.
	StateDir string
	// Who names this process in the locks ("memoryd compact
	// (compaction)"); "" gives "compaction".
	Who string
	// Git, when set, stands in for the Folder's repository in what Git
	// lists (a test's fault injection); nil means the Folder's repository.
	Git Git
	// LLM answers the plan requests.
	LLM llm.Completer
	// Model is the compaction model, "provider/model".
	Model string
	// Budget is the most characters of file text per request; 0 means
	// DefaultBudget.
	Budget int
	// MinEntries: with fewer memory files a pass does nothing and asks
	// nothing. Values below 2 mean 2.
	MinEntries int
	// Progress, when set, is called before each request to the model with
	// its number, the number of requests and the tokens used so far.
	Progress func(batch, batches, tokens int)
	// Hold, when set, leaves out of every request the facts the gate on
	// the way out holds from a model (folder.Gate.Holds(folder.RoadCompaction)):
	// a secret, a planted instruction nobody confirmed. They are counted in
	// Result.LeftOut, and no pass changes them.
	Hold func(*index.Memory) bool
	// Force is set when a person asked for the pass (memoryd compact
	// --force): the bound over a rolling day does not apply; the bounds of
	// a batch and of a pass still do.
	Force bool
	// OpDelay pauses before each applied op. Only for tests that kill the
	// process in the middle of applying; 0 in real use.
	OpDelay time.Duration
	// Logger receives one line per pass and per skipped op; nil discards.
	Logger *slog.Logger
}

// Compactor runs compaction passes over one memory folder. Its methods may
// be called from any goroutine; the pass lock keeps passes one at a time.
type Compactor struct {
	opts Options
	dir  string
	git  Git // nil when the folder has no repository
	log  *slog.Logger
}

// New returns a Compactor. It starts and reads nothing.
func New(opts Options) *Compactor {
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	opts.MinEntries = max(opts.MinEntries, 2)
	if opts.Who == "" {
		opts.Who = "compaction"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Compactor{opts: opts, dir: opts.Folder.Dir(), log: log.With("component", "compactor")}
	if r := opts.Folder.Repo(); r != nil {
		c.git = r
		if opts.Git != nil {
			c.git = opts.Git
		}
	}
	return c
}

// Plan is a dry run: the pass Compact makes — scan, ask the model,
// validate, apply, commit — on a dry-run transaction
// (folder.Folder.BeginDryRun), which records instead of writing. The
// Result says what would be applied and skipped. It writes nothing, takes
// no lock, needs no repository and adds nothing to the day's bound. Errors
// are those of Compact that can happen before the checkpoint.
func (c *Compactor) Plan(ctx context.Context) (*Result, error) { return c.pass(ctx, true) }

// Compact runs one pass, as the package documentation describes.
//
// An op is skipped, and logged, when a file it names is not a clean
// relative path inside the folder, is reserved (MEMORY.md, _CONFLICTS.md,
// PROTOCOL.md) or not a memory file, does not exist, could not be parsed,
// was not among the files of its request, is readonly (flags may name
// readonly files), is flagged as a contradiction by the same plan, or is
// already used by an earlier op; when a merge's target name is invalid or
// names an existing file that is not one of the merged ones; when a merge
// has an empty body or an unknown type; when a rewrite changes nothing (a
// rewrite without a body changes the description only); and, at apply
// time, when a file's bytes changed since the plan was made (a hand edit,
// or a fact saved or edited through memoryd, during the LLM call
// survives). A batch's plan that would remove more than max(1, a quarter
// of its files), or more than 20 files, is refused whole (a merge of k
// files removes k-1).
//
// Errors: ErrNoGit; an error wrapping state.ErrLocked when another pass
// holds the pass lock (at once, before the model is asked); one wrapping
// gitstore.ErrBusy when a git operation of the user's is under way before
// the model is asked; after it answered, the transaction's refusal
// (folder.Begin): one wrapping folder.ErrInOperation, or folder.ErrBusy
// (and state.ErrLocked or gitstore.ErrBusy) when another writer held the
// write lock or git stayed busy past the wait; ErrNothingToDo when nothing was changed; ErrBadPlan when
// no answer held a usable plan; ErrRefused when the only plans were
// refused; an LLM error (nothing was changed); Result.Stopped, matching
// llm.ErrBudgetSpent, when the day's token budget stopped the pass before
// a batch (what the batches before it planned is applied and committed). After the checkpoint, the
// pass finishes even if ctx is cancelled, so that no half-applied pass is
// left uncommitted.
func (c *Compactor) Compact(ctx context.Context) (*Result, error) { return c.pass(ctx, false) }

// pass is Compact, or with dry Plan.
func (c *Compactor) pass(ctx context.Context, dry bool) (*Result, error) {
	res := &Result{DryRun: dry}
	release, err := c.claim(dry)
	if err != nil {
		return res, err
	}
	defer release()
	todo, err := c.prepare(ctx, res)
	if err != nil {
		return res, err
	}
	// The model has answered: only now does the pass take the write lock,
	// for the checkpoint, the ops and the commit.
	begin := c.opts.Folder.Begin
	if dry {
		begin = c.opts.Folder.BeginDryRun
	}
	tx, err := begin(ctx, c.opts.Who)
	if err != nil {
		return res, fmt.Errorf("compaction: %w", err)
	}
	defer tx.Close()
	start := time.Now()
	// From here on the pass completes: a cancelled context must not leave
	// files half-applied and uncommitted.
	actx := context.WithoutCancel(ctx)
	if res.Checkpoint, err = c.checkpoint(actx, tx); err != nil {
		return res, err
	}
	a := &applier{tx: tx, log: c.log, delay: c.opts.OpDelay, res: res,
		touched: map[string]bool{}, before: map[string][]byte{}}
	applyErr := a.applyAll(todo)
	if res.Destructive > 0 && !dry {
		// Recorded before the commit: a crash after it must not reset
		// the day's count.
		c.record(res)
	}
	if staged, err := c.finish(actx, tx, a, res); err != nil {
		// All or nothing: without its commit the pass could not be
		// undone, so the folder goes back to the checkpoint.
		return res, errors.Join(applyErr, err, c.rollback(actx, a, staged, res))
	}
	c.log.Info("compaction finished", "dry_run", dry, "summary", res.Summary(), "skipped", len(res.Skipped),
		"calls", res.Calls, "chars_sent", res.CharsSent, "llm_time", res.LLMTime.Round(time.Millisecond),
		"apply_time", time.Since(start).Round(time.Millisecond), "checkpoint", res.Checkpoint, "commit", res.Commit)
	if applyErr != nil {
		return res, applyErr
	}
	if res.Stopped != nil {
		return res, res.Stopped
	}
	if len(res.Applied) == 0 {
		return res, ErrNothingToDo
	}
	return res, nil
}

// claim makes the checks of a pass that writes and takes the pass lock:
// ErrNoGit without a repository, an error wrapping state.ErrLocked while
// another pass runs, one wrapping gitstore.ErrBusy while a git operation
// of the user's is under way. A dry run claims nothing.
func (c *Compactor) claim(dry bool) (release func(), err error) {
	if dry {
		return func() {}, nil
	}
	if c.git == nil {
		return nil, ErrNoGit
	}
	pass, err := state.TryLock(c.opts.StateDir, PassLock, state.Owner(c.opts.Who))
	if err != nil {
		return nil, fmt.Errorf("compaction: %w", err)
	}
	if b, busy := c.git.Operation(); busy {
		pass.Unlock()
		return nil, fmt.Errorf("compaction: %w: %s; %s", gitstore.ErrBusy, b.Reason, b.Fix)
	}
	return func() { pass.Unlock() }, nil
}

// prepare scans the folder without the write lock, plans and validates.
// todo is the ops to apply; when there are none the error says why.
func (c *Compactor) prepare(ctx context.Context, res *Result) ([]*planned, error) {
	scan, err := c.opts.Folder.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("compaction: %w", err)
	}
	snap, err := c.eligible(ctx, scan, res)
	if err != nil {
		return nil, fmt.Errorf("compaction: %w", err)
	}
	res.Files = len(snap.Memories)
	if res.Files < c.opts.MinEntries {
		return nil, fmt.Errorf("%w: %d memory files, fewer than %d", ErrNothingToDo, res.Files, c.opts.MinEntries)
	}
	budget, err := c.budget(res.Files, time.Now())
	if err != nil {
		return nil, err
	}
	all, err := c.plan(ctx, snap, res, budget)
	if err != nil {
		return nil, err
	}
	var todo []*planned
	for _, p := range all {
		if p.skip == "" {
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 && res.Stopped != nil {
		return nil, res.Stopped
	}
	if len(todo) == 0 {
		return nil, c.why(res)
	}
	return todo, nil
}

// budget is how many files the pass may remove or cut down: the bound for
// a store of files, less what passes of the last 24 hours took unless a
// person forced this one. ErrBoundReached when nothing is left.
func (c *Compactor) budget(files int, now time.Time) (int, error) {
	limit := destructiveLimit(files)
	if c.opts.Force {
		return limit, nil
	}
	var st state.Compaction
	if err := state.ReadJSON(c.opts.StateDir, state.CompactionFile, &st); err != nil && !state.IsNotExist(err) {
		c.log.Warn("compaction state unreadable; the daily bound starts afresh", "err", err)
	}
	spent := st.RemovedSince(now.Add(-boundWindow))
	if spent >= limit {
		return 0, fmt.Errorf("%w: %d files removed or cut down in the last 24 hours, at most %d for %d files; a person can run 'memoryd compact --force'",
			ErrBoundReached, spent, limit, files)
	}
	return limit - spent, nil
}

// eligible leaves out of snap the files a pass must never change: those in
// subfolders (compaction works on the top level only) and those git would
// not commit (ignored and untracked: no checkpoint could bring them back).
// They are counted in res.LeftOut. A dry run without a repository leaves
// out only the subfolders.
func (c *Compactor) eligible(ctx context.Context, snap index.Snapshot, res *Result) (index.Snapshot, error) {
	var top []*index.Memory
	var files []string
	for _, m := range snap.Memories {
		// A superseded fact is history: no pass changes it.
		if !strings.Contains(m.File, "/") && !m.Superseded() && (c.opts.Hold == nil || !c.opts.Hold(m)) {
			top = append(top, m)
			files = append(files, m.File)
		}
	}
	var ignored map[string]bool
	if c.git != nil && len(files) > 0 {
		var err error
		if ignored, err = c.git.Ignored(ctx, files); err != nil {
			return snap, err
		}
	}
	kept := top[:0:0]
	for _, m := range top {
		if !ignored[m.File] {
			kept = append(kept, m)
		}
	}
	res.LeftOut = len(snap.Memories) - len(kept)
	if len(ignored) > 0 {
		c.log.Warn("memory files ignored by git are left out of compaction", "files", len(ignored))
	}
	snap.Memories = kept
	return snap, nil
}
