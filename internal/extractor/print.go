package extractor

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/memoryd/memoryd/internal/plain"
	"github.com/memoryd/memoryd/internal/transcript"
)

// PrintPass prints one session's pass (key names it) and reports false
// when it failed; only says that the run has this one session, so that a
// pass with nothing to do is said too.
func PrintPass(w io.Writer, key string, res Result, err error, dry, only bool) bool {
	w = plain.Writer{W: w} // it quotes the model and the files
	switch {
	case errors.Is(err, transcript.ErrSessionGone):
		fmt.Fprintf(w, "%s: the session no longer exists; its watermark is forgotten\n", key)
	case errors.Is(err, ErrNothingToDo):
		if only {
			fmt.Fprintf(w, "%s: nothing new since the last extraction\n", key)
		}
	case err != nil:
		fmt.Fprintf(w, "%s: failed: %v\n", key, err)
		return false
	default:
		printPass(w, key, res, dry)
	}
	return true
}

func printPass(w io.Writer, key string, res Result, dry bool) {
	w = plain.Writer{W: w} // it quotes the model and the files
	fmt.Fprintf(w, "%s: %d new message(s), %d sent", key, res.Messages, res.Sent)
	if res.Redacted > 0 {
		fmt.Fprintf(w, ", %d secret(s) redacted", res.Redacted)
	}
	if res.Withheld > 0 {
		fmt.Fprintf(w, ", %d withheld as asked", res.Withheld)
	}
	if res.Commit != "" {
		fmt.Fprintf(w, ", commit %.12s", res.Commit)
	}
	fmt.Fprintln(w)
	for _, c := range res.Changes {
		verb := c.Action + "d"
		if dry {
			verb = "would " + c.Action
		}
		fmt.Fprintf(w, "  %s %s\n", verb, c.File)
		if dry {
			for line := range strings.Lines(string(c.Data)) {
				fmt.Fprintf(w, "    | %s", line)
			}
		}
	}
	for _, r := range res.Rejected {
		fmt.Fprintf(w, "  skipped %q: %s\n", r.Name, r.Reason)
	}
}
