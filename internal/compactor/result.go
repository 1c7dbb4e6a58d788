package compactor

import (
	"fmt"
	"time"

	"github.com/memoryd/memoryd/internal/state"
)

// This file is what a compaction pass reports: its result, and the
// operations it skipped with why.

// Result describes a pass. A pass that fails still returns what it did up
// to the failure.
type Result struct {
	DryRun bool
	// Files is the number of readable memory files the pass considered;
	// LeftOut those it left alone: in a subfolder, or ignored by git.
	Files, LeftOut int
	// Batches, Calls and CharsSent count the LLM requests of the pass and
	// the characters of their system and user prompts.
	Batches, Calls, CharsSent int
	// LLMTime is the time spent waiting for the model; Tokens the tokens
	// of its calls (as reported, else estimated).
	LLMTime time.Duration
	Tokens  int
	// TooLarge lists files whose text alone exceeds the budget; they were
	// not sent and nothing was done to them.
	TooLarge []string
	// Applied lists the ops applied (in a dry run: those that would be).
	Applied []Op
	// Skipped lists the ops not applied, with the reason.
	Skipped []Skipped
	// Problems are plan-level troubles: an unusable answer, a refused plan.
	Problems []string
	// Counts of Applied by kind.
	// Compaction deletes nothing: a model's delete is applied as a
	// supersession (Superseded) or refused.
	Merged, Superseded, Rewrote, Flagged int
	// Destructive counts the files the applied ops remove or cut down to
	// less than half their text, for the bounds.
	Destructive int
	// Checkpoint is the commit undo returns to; Commit the compaction
	// commit. Both "" when no commit was made.
	Checkpoint, Commit string
	// Stopped, when set, is why the pass asked no further batch (an
	// error matching llm.ErrBudgetSpent): what the answered batches
	// planned was applied, the rest waits for the next pass. Compact and
	// Plan then return it.
	Stopped error

	badPlans, refused int // batches whose answer was unusable or refused
}

// Skipped is an op that was not applied, and why.
type Skipped struct {
	Op     Op
	Reason string
}

// Summary is the counts as the compaction commit's subject gives them.
func (r *Result) Summary() string {
	return fmt.Sprintf("merged %d, superseded %d, rewrote %d, flagged %d", r.Merged, r.Superseded, r.Rewrote, r.Flagged)
}

func (r *Result) count(op Op) {
	r.Applied = append(r.Applied, op)
	switch op.Op {
	case OpMerge:
		r.Merged++
	case OpSupersede:
		r.Superseded++
	case OpRewrite:
		r.Rewrote++
	case OpFlag:
		r.Flagged++
	}
}

// record adds the pass's destructive ops to the rolling day's count.
func (c *Compactor) record(res *Result) {
	if _, err := state.UpdateCompaction(c.opts.StateDir, time.Now(), state.AddRemoved(time.Now(), res.Destructive, boundWindow)); err != nil {
		c.log.Error("record the pass's removals", "err", err)
	}
}

// why explains a plan with nothing to apply.
func (c *Compactor) why(res *Result) error {
	switch {
	case res.Batches > 0 && res.badPlans == res.Batches:
		return fmt.Errorf("compaction: %w: %s", ErrBadPlan, res.Problems[0])
	case res.refused > 0:
		return fmt.Errorf("compaction: %w: %s", ErrRefused, res.Problems[len(res.Problems)-1])
	}
	return ErrNothingToDo
}
