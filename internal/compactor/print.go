package compactor

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/plain"
)

// PrintResult tells the user what a pass did, or would do, and what
// its error err means when it is ErrNothingToDo; res may be nil.
func PrintResult(w io.Writer, res *Result, err error) {
	w = plain.Writer{W: w} // it quotes the model and the files
	if res == nil {
		return
	}
	if res.Calls > 0 {
		fmt.Fprintf(w, "asked the model: %d request(s) for %d files, %d characters sent, %d tokens, %s\n",
			res.Calls, res.Files, res.CharsSent, res.Tokens, res.LLMTime.Round(time.Millisecond))
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
	case errors.Is(err, ErrNothingToDo):
		fmt.Fprintf(w, "%v\n", err)
	case err != nil:
	case res.DryRun:
		fmt.Fprintf(w, "dry run, nothing changed: would have %s\n", res.Summary())
	default:
		fmt.Fprintf(w, "compaction: %s\ncheckpoint %s, compaction commit %s (undo with 'memoryd undo')\n",
			res.Summary(), gitstore.Short(res.Checkpoint), gitstore.Short(res.Commit))
	}
}
