package facts

import (
	"context"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
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
// fact). A readonly fact is never replaced. A fact that changed after the
// proposal was made (a hand edit since) is not replaced unless force: the
// error is a *StaleError showing what accepting would change.
func (w *Writer) Accept(ctx context.Context, name string, force bool) (Done, error) {
	return w.review(ctx, name, "accepted", "", force)
}

// Reject deletes a fact from the inbox, saying why in the commit.
func (w *Writer) Reject(ctx context.Context, name, reason string) (Done, error) {
	if strings.TrimSpace(reason) == "" {
		reason = "rejected in review"
	}
	return w.review(ctx, name, "rejected", reason, false)
}

// StaleError is Accept's refusal to replace a fact that changed after the
// proposal was made.
type StaleError struct {
	File string
	Diff string // what accepting would change: the fact now → the proposal
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s changed after this proposal was made; accepting would replace that change:\n%s\nedit the proposal, reject it, or accept it anyway with --force", e.File, e.Diff)
}

// review accepts or rejects one inbox fact in a transaction, in one
// commit of its own ("memory: review: accept x.md (cli)").
func (w *Writer) review(ctx context.Context, name, action, reason string, force bool) (Done, error) {
	tx, err := w.opts.Folder.Begin(ctx, "memoryd "+w.opts.Who)
	if err != nil {
		return Done{}, err
	}
	defer tx.Close()
	snap := tx.Snapshot()
	m, err := findInbox(snap, name)
	if err != nil {
		return Done{}, err
	}
	target := index.InboxTarget(m.File)
	done := Done{File: target, Action: action, reason: oneLine(reason)}
	if action == "accepted" {
		if err := w.accept(ctx, tx, m, target, force); err != nil {
			return Done{}, err
		}
	}
	if err := tx.Remove(m.File, m.Hash); err != nil {
		return Done{}, err
	}
	verb := map[string]string{"accepted": "accept", "rejected": "reject"}[action]
	msg := commitmsg.Message{Subject: fmt.Sprintf("memory: review: %s %s (%s)", verb, target, w.opts.Who),
		Kind: commitmsg.KindReview, Writer: commitmsg.Person}
	if done.reason != "" {
		msg.Body = "Reason: " + done.reason
	}
	res, err := tx.Commit(ctx, msg)
	done.Commit = res.Commit
	return done, err
}

// accept writes the proposal m over target.
func (w *Writer) accept(ctx context.Context, tx *folder.Tx, m *index.Memory, target string, force bool) error {
	dir := w.opts.Folder.Dir()
	cur := ByFile(tx.Snapshot(), target)
	if cur != nil && cur.Readonly {
		return fmt.Errorf("%s %w (metadata.readonly): reject the proposal, or change the fact in your editor", target, ErrReadonly)
	}
	data, err := index.ReadPlain(dir, m.File)
	if err != nil {
		return err
	}
	hash := ""
	var now []byte
	if cur != nil {
		hash = cur.Hash
		if now, err = index.ReadPlain(dir, target); err != nil {
			return err
		}
	}
	if !force {
		if then, known := w.proposedOver(ctx, m.File, target); known && string(then) != string(now) {
			return &StaleError{File: target, Diff: Diff(string(now), string(data))}
		}
	}
	return tx.Write(target, data, hash)
}

// proposedOver is the fact target as it was when the proposal was
// committed (nil when it did not exist then); known is false when that
// cannot be told (no repository, a proposal never committed).
func (w *Writer) proposedOver(ctx context.Context, proposal, target string) (then []byte, known bool) {
	r := w.opts.Folder.Repo()
	if r == nil {
		return nil, false
	}
	log, err := r.FileLog(ctx, proposal, 1)
	if err != nil || len(log) == 0 {
		return nil, false
	}
	data, err := r.Show(ctx, log[0].Hash, target)
	if err != nil {
		return nil, true // absent then (or unreadable: refusing keeps the fact)
	}
	return data, true
}

// findInbox finds a fact in the inbox by file ("_inbox/x.md" or "x.md") or name.
func findInbox(snap index.Snapshot, name string) (*index.Memory, error) {
	inbox := index.Snapshot{Memories: Inbox(snap)}
	n := strings.TrimPrefix(strings.TrimSpace(name), index.InboxDir+"/")
	for _, f := range []string{index.InboxDir + "/" + n, index.InboxDir + "/" + n + ".md"} {
		if m := ByFile(inbox, f); m != nil {
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
