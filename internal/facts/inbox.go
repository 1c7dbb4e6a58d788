package facts

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// Inbox lists the facts waiting for review, by file ("_inbox/x.md").
func Inbox(snap index.Snapshot) []*index.Memory {
	var out []*index.Memory
	for _, m := range snap.Memories {
		if index.InInbox(m.File) {
			out = append(out, m)
		}
	}
	return out
}

// Accept moves a fact out of the inbox into the folder, replacing the fact
// of the same name when it is a proposed update (its text is the whole new
// fact). A readonly fact is never replaced.
func (w *Writer) Accept(ctx context.Context, name string) (Done, error) {
	return w.review(ctx, name, "accepted", "")
}

// Reject deletes a fact from the inbox, saying why in the commit.
func (w *Writer) Reject(ctx context.Context, name, reason string) (Done, error) {
	if strings.TrimSpace(reason) == "" {
		reason = "rejected in review"
	}
	return w.review(ctx, name, "rejected", reason)
}

// review accepts or rejects one inbox fact under the write lock, in one
// commit of its own ("memory: review: accept x.md (cli)").
func (w *Writer) review(ctx context.Context, name, action, reason string) (Done, error) {
	lock, err := w.lock(ctx)
	if err != nil {
		return Done{}, err
	}
	defer lock.Unlock()
	store := index.NewStore(w.opts.Dir)
	if err := store.Scan(); err != nil {
		return Done{}, err
	}
	snap := store.Snapshot()
	m, err := findInbox(snap, name)
	if err != nil {
		return Done{}, err
	}
	if _, err := index.ReadCurrent(w.opts.Dir, m.File, m.Hash); err != nil {
		return Done{}, err
	}
	target := path.Base(m.File)
	done := Done{File: target, Action: action, reason: oneLine(reason)}
	if action == "accepted" {
		cur := find(snap, target)
		if cur != nil && cur.Readonly {
			return Done{}, fmt.Errorf("%s %w (metadata.readonly): reject the proposal, or change the fact in your editor", target, ErrReadonly)
		}
		data, err := index.ReadPlain(w.opts.Dir, m.File)
		if err != nil {
			return Done{}, err
		}
		hash := ""
		if cur != nil {
			hash = cur.Hash
		}
		if _, err := index.ReadCurrent(w.opts.Dir, target, hash); err != nil {
			return Done{}, err
		}
		if _, err := index.WriteMemory(w.opts.Dir, target, data); err != nil {
			return Done{}, err
		}
	}
	if err := index.RemoveMemory(w.opts.Dir, m.File); err != nil {
		return Done{}, err
	}
	if _, err := store.Settle(); err != nil {
		return done, err
	}
	verb := map[string]string{"accepted": "accept", "rejected": "reject"}[action]
	msg := fmt.Sprintf("memory: review: %s %s (%s)", verb, target, w.opts.Who)
	if done.reason != "" {
		msg += "\n\nReason: " + done.reason + "\n"
	}
	ours := func(rel string) bool { return rel == target || rel == m.File || generated(rel) }
	if w.opts.Repo != nil {
		c, err := w.opts.Repo.CommitPending(ctx, ours, func([]string) string { return msg })
		if err != nil {
			return done, fmt.Errorf("done, but not committed (the daemon commits it later): %w", err)
		}
		done.Commit = c.Hash
	}
	return done, nil
}

// findInbox finds a fact in the inbox by file ("_inbox/x.md" or "x.md") or name.
func findInbox(snap index.Snapshot, name string) (*index.Memory, error) {
	inbox := index.Snapshot{Memories: Inbox(snap)}
	n := strings.TrimPrefix(strings.TrimSpace(name), index.InboxDir+"/")
	for _, f := range []string{index.InboxDir + "/" + n, index.InboxDir + "/" + n + ".md"} {
		if m := find(inbox, f); m != nil {
			return m, nil
		}
	}
	var found []*index.Memory
	for _, m := range inbox.Memories {
		if m.Name == n {
			found = append(found, m)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	if len(found) > 1 {
		return nil, fmt.Errorf("%q names several facts in the inbox: give the file name", name)
	}
	return nil, fmt.Errorf("%w %q in the inbox (memoryd review lists it)", ErrNotFound, name)
}
