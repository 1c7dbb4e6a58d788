package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
)

type checkOptions struct {
	*app
	scopeOptions
	confirm string
}

func newCmdCheck(a *app) *cobra.Command {
	o := &checkOptions{app: a}
	cmd := &cobra.Command{
		Use:   "check [--project=SLUG] [--all] [--type=T] [--json] [--confirm=NAME]",
		Short: "List the facts whose cited files changed or are gone (exit 1 when any); --confirm NAME records the files' versions now, or lets out a fact held from agents.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runCheck(cmd.Context(), o) },
	}
	scopeFlags(cmd, a, &o.scopeOptions)
	cmd.Flags().StringVar(&o.confirm, "confirm", "", "the fact (`NAME` or file) whose cited files still bear it out: record their versions now and commit; or a fact held from agents as a planted instruction that is yours: let it out")
	cmd.RegisterFlagCompletionFunc("confirm", func(_ *cobra.Command, _ []string, s string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return factNames(a, s), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// checkJSON is what `memoryd check --json` prints (docs/JSON.md).
type checkJSON struct {
	Stale     []staleJSON `json:"stale"`     // the facts that may be stale, by file name
	Unchecked []string    `json:"unchecked"` // facts that cite files of a project whose root is not found from here
	Checked   int         `json:"checked"`   // facts with cites that were compared
}

type staleJSON struct {
	File    string        `json:"file"`
	Project string        `json:"project,omitempty"`
	Root    string        `json:"root"`
	Marker  string        `json:"marker"`
	Changes []cite.Change `json:"changes"`
}

// runCheck compares the cites of the facts in scope with the files now.
// Its exit status is 1 when a fact may be stale, so a script or a CI job
// can act; nothing is changed unless --confirm names a fact.
func runCheck(ctx context.Context, o *checkOptions) error {
	e := o.env
	if name := o.confirm; name != "" {
		f, w, err := factWriter(e, o.global)
		if err != nil {
			return err
		}
		if more, err := confirmPlanted(ctx, e, f, name); err != nil || !more {
			return err
		}
		d, err := w.Confirm(ctx, name)
		if err != nil {
			return factError(err)
		}
		printDone(e.stdout, f, d)
		return nil
	}
	f, err := readFolder(e, o.global)
	if err != nil {
		return err
	}
	snap, err := index.Scan(f.dir)
	if err != nil {
		return err
	}
	out := teamCheck(o.check(snap), workDir(), o.typ)
	if o.json {
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		printCheck(e, out)
	}
	if len(out.Stale) > 0 {
		return exitError{code: exitFail}
	}
	return nil
}

// check compares the cites of the facts in scope with the files now.
func (o *checkOptions) check(snap index.Snapshot) checkJSON {
	chk := cite.NewChecker(workDir())
	slug, all, typ := o.scope(), o.all, o.typ
	out := checkJSON{Stale: []staleJSON{}, Unchecked: []string{}}
	for _, m := range snap.Memories {
		if len(m.Cites) == 0 || index.InInbox(m.File) || m.Superseded() || !(all || m.Project == "" || m.Project == slug) || typ != "" && m.Type != typ {
			continue
		}
		res := chk.Check(m)
		switch {
		case res.Unchecked:
			out.Unchecked = append(out.Unchecked, m.File)
			continue
		case res.Stale():
			out.Stale = append(out.Stale, staleJSON{File: m.File, Project: m.Scope(), Root: res.Root,
				Marker: cite.Marker(res.Changes), Changes: res.Changes})
		}
		out.Checked++
	}
	return out
}

func printCheck(e env, out checkJSON) {
	for _, s := range out.Stale {
		fmt.Fprintf(e.stdout, "%s  %s\n", s.File, s.Marker)
	}
	if len(out.Unchecked) > 0 {
		fmt.Fprintf(e.stdout, "%d facts cite files of a project not found from here (run memoryd check in a checkout of it): %s\n",
			len(out.Unchecked), joinShort(out.Unchecked))
	}
	for _, s := range out.Stale {
		if s.Project == "team" {
			fmt.Fprintln(e.stdout, "a team fact (.memory/) is fixed in the project: edit its file and commit it with your change (memoryd why NAME says who added it)")
			break
		}
	}
	switch n := len(out.Stale); {
	case n > 0:
		fmt.Fprintf(e.stdout, "%d of %d facts that cite files may be stale: read the files, then fix the fact (memoryd edit NAME) or confirm it still holds (memoryd check --confirm NAME)\n", n, out.Checked)
	default:
		fmt.Fprintf(e.stdout, "%d facts cite files; none changed since it was written or confirmed\n", out.Checked)
	}
}

// joinShort lists names, the first few of them.
func joinShort(names []string) string {
	const most = 5
	if len(names) <= most {
		return fmt.Sprint(names)
	}
	return fmt.Sprintf("%v and %d more", names[:most], len(names)-most)
}
