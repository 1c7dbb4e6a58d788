package main

import (
	"fmt"
	"io"
	"time"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/recall"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/status"
	"github.com/memoryd/memoryd/internal/usage"
)

// countUse records that an agent (or a person's search) used files, in the
// usage log of the state folder (package usage). Counting never fails the
// command that used them: a failure is logged at debug level and dropped.
func (f *folder) countUse(kind usage.Kind, files ...string) {
	if err := usage.Open(f.stateDir).Record(kind, time.Now(), files...); err != nil {
		f.log.Debug("usage not counted", "kind", kind, "err", err)
	}
}

// countListed records that a session loaded an index listing the facts
// linked in text (memoryd context). It works from the configuration alone,
// as context does, and stays silent on any error.
func countListed(e env, memoryDir string, text []byte) {
	dir, err := state.RealPath(memoryDir)
	if err != nil {
		return
	}
	sd, err := state.Dir(stateHome(e), dir)
	if err != nil {
		return
	}
	var files []string
	for _, m := range recall.IndexLink.FindAllSubmatch(text, -1) {
		files = append(files, string(m[1]))
	}
	usage.Open(sd).Record(usage.Context, time.Now(), files...)
}

// uses is every fact's use so far; an unreadable log is logged and read as
// no use at all.
func (f *folder) uses() map[string]usage.Use {
	u, err := usage.Open(f.stateDir).Read()
	if err != nil {
		f.log.Warn("usage counts unreadable", "err", err)
	}
	return u
}

// unusedProposal is the facts no agent used (facts.Unused) for
// review.unused_after; nil when that is 0 or none qualifies.
func unusedProposal(f *folder, now time.Time) *status.Unused {
	after := f.cfg.Review.UnusedAfter
	if after <= 0 {
		return nil
	}
	snap, err := index.Scan(f.dir)
	if err != nil {
		return nil
	}
	files := facts.Unused(f.dir, snap, f.uses(), after.D(), now)
	if len(files) == 0 {
		return nil
	}
	return &status.Unused{After: after.String(), Files: files, Command: "memoryd list --all --unused " + after.String()}
}

// printUnusedHint adds status's proposal of unused facts to the review
// list: they are not inbox items (accept and reject do not apply), but a
// person reviewing is who should see them.
func printUnusedHint(w io.Writer, f *folder) {
	if u := unusedProposal(f, time.Now()); u != nil {
		fmt.Fprintf(w, "also: %d %s no agent used in %s (never deleted on their own): %s, then memoryd forget NAME or pin it\n",
			len(u.Files), plural(len(u.Files), "fact", "facts"), u.After, u.Command)
	}
}
