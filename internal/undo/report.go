package undo

import (
	"fmt"
	"io"
	"time"

	"github.com/memoryd/memoryd/internal/gitstore"
)

// HistoryEntry is one commit in `memoryd history --json`.
type HistoryEntry struct {
	Hash     string    `json:"hash"`
	At       time.Time `json:"at"`
	Kind     string    `json:"kind"` // "" for a commit memoryd did not make
	Subject  string    `json:"subject"`
	Files    []string  `json:"files"`
	Undoable bool      `json:"undoable"`
	UndoneBy string    `json:"undoneBy,omitempty"`
}

// HistoryJSON is entries as `memoryd history --json` prints them; Files
// is never nil.
func HistoryJSON(entries []Entry) []HistoryEntry {
	out := make([]HistoryEntry, len(entries))
	for i, c := range entries {
		out[i] = HistoryEntry{Hash: c.Hash, At: c.When, Kind: c.Kind, Subject: c.Subject, Files: c.Files,
			Undoable: c.Undoable, UndoneBy: c.UndoneBy}
		if out[i].Files == nil {
			out[i].Files = []string{}
		}
	}
	return out
}

// Mark is a commit's two-letter mark in `memoryd history`: whether undo
// can take it back (u) or already did (-), then C for a checkpoint, * for
// a compaction.
func (c Entry) Mark() string {
	mark := " "
	switch {
	case c.UndoneBy != "":
		mark = "-"
	case c.Undoable:
		mark = "u"
	}
	switch c.Kind {
	case KindCheckpoint:
		return mark + "C"
	case KindCompaction:
		return mark + "*"
	}
	return mark + " "
}

// Print says what an undo did.
func (res Result) Print(w io.Writer) {
	if res.Restored {
		fmt.Fprintf(w, "restored the memory folder to %s in commit %s\n", res.What, gitstore.Short(res.Commit))
		if res.Later > 0 {
			fmt.Fprintf(w, "note: %d later commit(s) to the memory folder were undone too; they stay in history ('memoryd history')\n", res.Later)
		}
	} else {
		fmt.Fprintf(w, "undid %s in commit %s\n", res.What, gitstore.Short(res.Commit))
		for _, c := range res.Changes {
			fmt.Fprintf(w, "  %s %s\n", c.How, c.File)
		}
	}
	for _, c := range res.Replaced {
		fmt.Fprintf(w, "replaced a later change (--force): %s, %s\n", c.File, c.What())
	}
	for _, h := range res.Held {
		fmt.Fprintf(w, "not committed: %s\n", h.Reason)
	}
}
