package extractor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memoryd/memoryd/internal/transcript"
)

// Totals is what a run over many sessions did.
type Totals struct {
	Passes  int // sessions with a pass that wrote or had nothing to do
	Written int // files written (or, dry, that would be)
	Tokens  int
	Done    int // sessions gone through before an interruption
	Failed  int
}

// AllOptions shape ExtractAll: Dry plans only; Patience is how long each
// pass waits for a folder another writer holds (ExtractWaiting). Step, if
// set, is called before the pass of targets[i] with the totals so far;
// Pass after it, and reports whether the pass counts as a success (a
// session gone, or with nothing new, is not a failure).
type AllOptions struct {
	Dry      bool
	Patience time.Duration
	Step     func(i int, key string, t Totals)
	Pass     func(key string, res Result, err error) bool
}

// ExtractAll runs one pass per session of targets, in order. A failing
// session does not stop the others; the error at the end says how many
// failed, or that ctx ended the run (what was extracted before is
// committed).
func (x *Extractor) ExtractAll(ctx context.Context, targets []transcript.Session, o AllOptions) (Totals, error) {
	var t Totals
	for i, s := range targets {
		if ctx.Err() != nil {
			break
		}
		key := Key(s.Source, s.ID)
		if o.Step != nil {
			o.Step(i, key, t)
		}
		res, err := x.ExtractWaiting(ctx, s.Source, s.ID, o.Dry, o.Patience)
		if ctx.Err() != nil && err != nil {
			break // interrupted in the middle: nothing of this pass was written
		}
		t.Done++
		t.Tokens += res.Tokens
		ok := err == nil || errors.Is(err, transcript.ErrSessionGone) || errors.Is(err, ErrNothingToDo)
		if o.Pass != nil {
			ok = o.Pass(key, res, err)
		}
		if !ok {
			t.Failed++
		} else if err == nil {
			t.Passes++
			t.Written += len(res.Changes)
		}
	}
	if ctx.Err() != nil {
		return t, fmt.Errorf("interrupted after %d of %d session(s); what was extracted is committed — run 'memoryd extract' again to go on", t.Done, len(targets))
	}
	if t.Failed > 0 {
		return t, fmt.Errorf("%d session(s) failed", t.Failed)
	}
	return t, nil
}
