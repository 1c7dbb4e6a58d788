package undo

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// Kinds of commit, from the commit vocabulary (package commitmsg). Every
// kind but KindOther is memoryd's and can be undone.
const (
	KindCompaction = string(commitmsg.KindCompaction)
	KindCheckpoint = string(commitmsg.KindCheckpoint)
	KindExtraction = string(commitmsg.KindExtraction)
	KindAdd        = string(commitmsg.KindAdd) // and replace, edit, forget
	KindReplace    = string(commitmsg.KindReplace)
	KindEdit       = string(commitmsg.KindEdit)
	KindForget     = string(commitmsg.KindForget)
	KindSupersede  = string(commitmsg.KindSupersede) // a new fact and the old one it replaced, marked superseded_by
	KindUpdate     = string(commitmsg.KindUpdate)    // the daemon's commit of a person's edits
	KindUndo       = string(commitmsg.KindUndo)
	KindMemoryd    = string(commitmsg.KindMemoryd) // review, import, another "memory: " commit
	KindOther      = string(commitmsg.KindOther)   // not memoryd's: a person's or another tool's commit
)

// KindOf names the kind of a commit from its message (its subject, for a
// commit without memoryd's trailers).
func KindOf(subject string) string { return string(commitmsg.Parse(subject).Kind) }

// restores reports whether undoing a commit of kind puts the whole folder
// back to a commit (compaction: to the checkpoint, its parent; checkpoint:
// to itself) rather than reverting the commit's own files.
func restores(kind string) bool { return kind == KindCompaction || kind == KindCheckpoint }

// own returns the files of a commit that undo reverts: tracked, not
// generated (folder.Generated: undo settles the folder after its change
// instead).
func own(dir string, files []string) []string {
	var out []string
	for _, f := range files {
		if index.Tracked(f) && !folder.Generated(dir, f) {
			out = append(out, f)
		}
	}
	return out
}

// Entry is one commit of the memory folder as undo sees it.
type Entry struct {
	gitstore.Commit
	Kind string
	// UndoneBy is the undo commit that took this one back ("" when none
	// did, or when that undo was itself undone).
	UndoneBy string
	// Undoable says `memoryd undo <hash>` would take it back: a memoryd
	// commit, not undone, that changed a file undo reverts.
	Undoable bool
}

var undoSubject = regexp.MustCompile(`^memory: undo (compaction |to checkpoint )?([0-9a-f]{7,40})\b`)

// Classify reads hist, commits of the memory folder dir (newest first, as gitstore.History gives it): each
// commit's kind, which undo commits took which commits back, and what can
// be undone. An undo commit names what it undid in its subject: a plain
// undo takes back that commit; "undo compaction X" and "undo to
// checkpoint X" put the whole folder back, so they take back X (or the
// commits after checkpoint X) and every commit up to themselves. An undo
// that was itself undone (a redo) takes nothing back.
func Classify(dir string, hist []gitstore.Commit) []Entry {
	es := make([]Entry, len(hist))
	for i, c := range hist {
		msg := c.Message
		if msg.Subject == "" {
			msg = commitmsg.Parse(c.Subject)
		}
		es[i] = Entry{Commit: c, Kind: string(msg.Kind)}
	}
	for i := range es {
		e := &es[i]
		if e.Kind != KindUndo || e.UndoneBy != "" {
			continue
		}
		m := undoSubject.FindStringSubmatch(e.Subject)
		if m == nil {
			continue
		}
		j := find(es[i+1:], m[2])
		if j < 0 {
			continue
		}
		j += i + 1
		from, to := j, j // the commits e took back: es[from..to]
		switch m[1] {
		case "compaction ":
			from = i + 1
		case "to checkpoint ":
			from, to = i+1, j-1
		}
		for k := from; k <= to; k++ {
			if es[k].UndoneBy == "" {
				es[k].UndoneBy = e.Hash
			}
		}
	}
	for i := range es {
		e := &es[i]
		switch {
		case e.Kind == KindOther || e.UndoneBy != "":
		case e.Kind == KindCompaction:
			e.Undoable = true
		case e.Kind == KindCheckpoint:
			e.Undoable = dangling(es, i)
		default:
			e.Undoable = len(own(dir, e.Files)) > 0
		}
	}
	return es
}

// find returns the index of the entry whose hash starts with prefix, or -1.
func find(es []Entry, prefix string) int {
	for i, e := range es {
		if strings.HasPrefix(e.Hash, prefix) {
			return i
		}
	}
	return -1
}

// dangling reports whether the checkpoint es[i] was not followed by its
// compaction commit: the pass died (or its commit failed) after the
// checkpoint, so going back to it is how that pass is undone.
func dangling(es []Entry, i int) bool { return i == 0 || es[i-1].Kind != KindCompaction }

// ErrNoMemorydCommit means history holds nothing memoryd did.
var ErrNoMemorydCommit = errors.New("no memoryd commit to undo: no compaction to undo, no extraction, no add, edit or forget, no commit of the daemon's ('memoryd history' lists the folder's commits)")

// Target picks the commit to undo in es (from Classify). With commit "",
// it is the newest undoable commit of memoryd's own — not an undo (a redo
// is asked for by hash), not the daemon's commit of a person's hand edits
// (taken back only when named), and not a checkpoint, except a checkpoint left dangling by
// a pass that died: it is the target when it is the newest commit and
// pending is set (the pass's half-applied changes are not committed yet),
// or when the newest undoable commit is the daemon's commit right after it
// (which recorded them). With a hash prefix of at least 4 digits, it is
// that commit, which must be memoryd's.
//
// The index of the entry is returned. Errors: ErrNoMemorydCommit; an error
// wrapping ErrNothingToUndo when every memoryd commit is undone already or
// the given one was; an error naming the commit when it is not found or is
// not memoryd's.
func Target(es []Entry, commit string, pending bool) (int, error) {
	if commit != "" {
		return named(es, strings.ToLower(commit))
	}
	ours := false
	for i, e := range es {
		ours = ours || e.Kind != KindOther
		switch {
		case !e.Undoable || e.Kind == KindUndo:
		case e.Kind == KindCheckpoint:
			if i == 0 && pending {
				return i, nil
			}
		case e.Kind == KindUpdate && i+1 < len(es) && es[i+1].Kind == KindCheckpoint && es[i+1].Undoable:
			return i + 1, nil
		case e.Kind == KindUpdate:
			// A person's own edits, which the daemon committed: undone
			// only when named.
		default:
			return i, nil
		}
	}
	if !ours {
		return -1, ErrNoMemorydCommit
	}
	return -1, fmt.Errorf("%w: everything memoryd did is undone already (see 'memoryd history')", ErrNothingToUndo)
}

// named finds the commit a user named by a hash prefix.
func named(es []Entry, want string) (int, error) {
	i := -1
	if len(want) >= 4 {
		i = find(es, want)
	}
	if i < 0 {
		return -1, fmt.Errorf("commit %q is not among the last %d commits of the memory folder (see 'memoryd history')", want, Depth)
	}
	e := es[i]
	switch {
	case e.Kind == KindOther:
		return -1, fmt.Errorf("commit %s (%q) was not made by memoryd: it is neither a compaction nor a checkpoint, an extraction, an add, edit or forget, nor a commit of the daemon's; take it back with git (git revert %s)",
			gitstore.Short(e.Hash), e.Subject, gitstore.Short(e.Hash))
	case e.UndoneBy != "":
		return -1, fmt.Errorf("%w: %s (%s) was undone already by %s", ErrNothingToUndo, gitstore.Short(e.Hash), e.Subject, gitstore.Short(e.UndoneBy))
	case !restores(e.Kind) && !e.Undoable: // only files memoryd rebuilds (see Classify)
		return -1, fmt.Errorf("%w: %s (%s) changed only files memoryd rebuilds (%s)", ErrNothingToUndo, gitstore.Short(e.Hash), e.Subject, strings.Join(e.Files, ", "))
	}
	return i, nil
}
