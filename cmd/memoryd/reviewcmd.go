package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"golang.org/x/term"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/index"
)

type reviewOptions struct {
	*app
	args   []string // [accept|reject] [NAME]
	all    bool
	reason string
	force  bool
	json   bool
}

func newCmdReview(a *app) *cobra.Command {
	o := &reviewOptions{app: a}
	cmd := &cobra.Command{
		Use:       "review [accept|reject] [NAME] [--all] [--reason=TEXT] [--json]",
		Short:     "Review the facts that wait in _inbox/: one at a time on a terminal, or accept/reject by name.",
		ValidArgs: reviewActions,
		Args:      cobra.MatchAll(argsAtMost(2), oneOfArg(0, "action", reviewActions)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return runReview(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.all, "all", false, "accept or reject every fact in the inbox")
	cmd.Flags().StringVar(&o.reason, "reason", "", "why the fact is rejected (kept in the commit)")
	cmd.Flags().BoolVar(&o.force, "force", false, "accept even over a change made to the fact after the proposal")
	cmd.Flags().BoolVar(&o.json, "json", false, "list the facts that wait as JSON (no action)")
	return cmd
}

// reviewActions are the actions review takes by name.
var reviewActions = []string{"accept", "reject"}

func runReview(ctx context.Context, o *reviewOptions) error {
	e, args := o.env, o.args
	if len(args) > 0 && o.json {
		return usageError{"--json lists the facts that wait; it takes no action"}
	}
	f, w, err := factWriter(e, o.global)
	if err != nil {
		return err
	}
	inbox, err := inboxOf(f)
	if err != nil {
		return err
	}
	all := o.all
	switch {
	case len(args) == 0 && o.json:
		return writeJSON(e.stdout, facts.Views(inbox, cite.NewChecker(workDir())))
	case len(args) == 0 && len(inbox) == 0:
		fmt.Fprintln(e.stdout, "no facts wait for review")
		printUnusedHint(e.stdout, f)
		return nil
	case len(args) == 0 && isTerminal(e.stdin) && isTerminal(e.stdout):
		return reviewInteractively(ctx, e, f, w, inbox)
	case len(args) == 0:
		printInbox(e.stdout, f, inbox)
		return nil
	case all == (len(args) == 2):
		return usageError{"name one fact, or give --all"}
	}
	for _, name := range reviewNames(args[1:], all, inbox) {
		if err := reviewOne(ctx, e.stdout, f, w, args[0], name, o.reason, o.force); err != nil {
			return err
		}
	}
	return nil
}

// printInbox lists the facts that wait, each with where it would go and,
// for a sync conflict, which machine's version it is.
func printInbox(w io.Writer, f *folder, inbox []*index.Memory) {
	origins := gitsync.ReviewOrigins(f.stateDir)
	for _, m := range inbox {
		printFact(w, m.File, m.Title, m.Name, m.Description, inboxWhere(f, m))
		if o, ok := origins[m.File]; ok {
			fmt.Fprintf(w, "  %s\n", o.Line())
		}
	}
	fmt.Fprintln(w, "accept or reject them with: memoryd review accept|reject NAME (or --all)")
	printUnusedHint(w, f)
}

// reviewNames are the facts a review command names: the one given, or with
// --all every fact in the inbox.
func reviewNames(given []string, all bool, inbox []*index.Memory) []string {
	if !all {
		return given
	}
	var names []string
	for _, m := range inbox {
		names = append(names, m.File)
	}
	return names
}

// reviewOne accepts or rejects one inbox fact and says so.
func reviewOne(ctx context.Context, out io.Writer, f *folder, w *facts.Writer, action, name, reason string, force bool) error {
	var d facts.Done
	var err error
	if action == "accept" {
		if handled, err := reviewTeam(ctx, out, f, w, name); handled {
			return err
		}
		d, err = w.Accept(ctx, name, force)
	} else {
		d, err = w.Reject(ctx, name, reason)
	}
	if err != nil {
		return err
	}
	printDone(out, f, d)
	return nil
}

func inboxOf(f *folder) ([]*index.Memory, error) {
	snap, err := index.Scan(f.dir)
	if err != nil {
		return nil, err
	}
	return facts.Inbox(snap), nil
}

// reviewInteractively shows each inbox fact and takes one key: accept,
// reject, edit (then accept), skip, or quit.
func reviewInteractively(ctx context.Context, e env, f *folder, w *facts.Writer, inbox []*index.Memory) error {
	origins := gitsync.ReviewOrigins(f.stateDir)
	for i, m := range inbox {
		origin := ""
		if o, ok := origins[m.File]; ok {
			origin = o.Line()
		}
		if err := showProposal(e.stdout, f, m, fmt.Sprintf("(%d of %d)", i+1, len(inbox)), origin); err != nil {
			return err
		}
		fmt.Fprint(e.stdout, "\n[a]ccept [r]eject [e]dit [s]kip [q]uit? ")
		key, err := readKey(e.stdin)
		fmt.Fprintln(e.stdout)
		if err != nil {
			return err
		}
		if key == 'q' {
			return nil
		}
		err = reviewKey(ctx, e, f, w, m, key)
		var stale *facts.StaleError
		if err != nil && !errors.Is(err, facts.ErrReadonly) && !errors.As(err, &stale) {
			return err
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "memoryd review: %v\n", err)
		}
	}
	return nil
}

// reviewKey does what key asks of the proposal m: accept, reject, edit
// then accept, or skip.
func reviewKey(ctx context.Context, e env, f *folder, w *facts.Writer, m *index.Memory, key byte) error {
	switch key {
	case 'a':
		return reviewOne(ctx, e.stdout, f, w, "accept", m.File, "", false)
	case 'r':
		return reviewOne(ctx, e.stdout, f, w, "reject", m.File, "rejected in review", false)
	case 'e':
		// The person edited the proposal with the fact as it is now
		// shown above it: their edit is what they accept.
		if err := editInbox(ctx, e, f, w, m); err != nil {
			return err
		}
		return reviewOne(ctx, e.stdout, f, w, "accept", m.File, "", true)
	}
	fmt.Fprintln(e.stdout, "skipped")
	return nil
}

// showProposal prints the proposal m, after its place in the inbox: the
// change it makes to the fact of its name, or the new fact.
func showProposal(w io.Writer, f *folder, m *index.Memory, place, origin string) error {
	data, err := index.ReadPlain(f.dir, m.File)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s %s", place, m.File)
	if origin != "" {
		fmt.Fprintf(w, " — %s", origin)
	}
	if cur, err := index.ReadPlain(f.dir, path.Base(m.File)); err == nil {
		fmt.Fprintf(w, " — changes %s:\n%s", path.Base(m.File), facts.Diff(string(cur), string(data)))
	} else {
		fmt.Fprintf(w, " — a new fact:\n%s", data)
	}
	return nil
}

// editInbox opens the proposal in the editor and writes it back, checked.
func editInbox(ctx context.Context, e env, f *folder, w *facts.Writer, m *index.Memory) error {
	if err := runEditor(ctx, e, path.Join(f.dir, m.File)); err != nil {
		return err
	}
	data, err := os.ReadFile(path.Join(f.dir, m.File))
	if err != nil {
		return err
	}
	if _, err := index.Parse(m.File, data); err != nil {
		return fmt.Errorf("%w; the proposal stays in the inbox", err)
	}
	return nil
}

// readKey reads one key press from a terminal.
func readKey(in io.Reader) (byte, error) {
	if f, ok := in.(*os.File); ok {
		if old, err := term.MakeRaw(int(f.Fd())); err == nil {
			defer term.Restore(int(f.Fd()), old)
		}
	}
	var b [1]byte
	if _, err := in.Read(b[:]); err != nil {
		return 0, err
	}
	return strings.ToLower(string(b[:]))[0], nil
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
