package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// factOptions are the options of the commands whose argument is one fact.
type factOptions struct {
	*app
	name   string // NAME|FILE
	json   bool
	reason string
	force  bool
}

// newFactCmd is a command whose one argument is a fact, completed from
// the folder's facts; run gets the options.
func newFactCmd(a *app, use, short string, run func(context.Context, *factOptions) error) (*cobra.Command, *factOptions) {
	o := &factOptions{app: a}
	return &cobra.Command{
		Use:               use,
		Short:             short,
		Args:              exactArgs(1, "name one fact: NAME or FILE"),
		ValidArgsFunction: completeFacts(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			return run(cmd.Context(), o)
		},
	}, o
}

func newCmdShow(a *app) *cobra.Command {
	cmd, o := newFactCmd(a, "show NAME|FILE [--json]", "Print a fact's file.", runShow)
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON: the fact's fields and its file's content")
	return cmd
}

func newCmdEdit(a *app) *cobra.Command {
	cmd, _ := newFactCmd(a, "edit NAME|FILE", "Open a fact in $VISUAL or $EDITOR; it is checked when you save and committed.", runEdit)
	return cmd
}

func newCmdForget(a *app) *cobra.Command {
	cmd, o := newFactCmd(a, "forget NAME|FILE --reason=TEXT", "Delete a fact, with the reason in the commit.", runForget)
	cmd.Flags().StringVar(&o.reason, "reason", "", "why the fact is no longer true or useful")
	cmd.Flags().BoolVar(&o.force, "force", false, "delete a fact git ignores, which cannot be undone from the history")
	return cmd
}

// factWriter is the fact writer for the folder the flags name.
func factWriter(e env, g globalFlags) (*folder, *facts.Writer, error) {
	f, err := openFolder(e, g)
	if err != nil {
		return nil, nil, err
	}
	return f, f.writer("cli"), nil
}

// factError adds what to do to the writer's errors that are the user's to fix.
func factError(err error) error {
	if errors.Is(err, facts.ErrInvalid) || errors.Is(err, facts.ErrSecret) {
		return fmt.Errorf("%w\nnothing was written", err)
	}
	return err
}

func printDone(w io.Writer, f *folder, d facts.Done) {
	fmt.Fprintf(w, "%s %s", d.Action, filepath.Join(f.dir, d.File))
	switch {
	case d.Commit != "":
		fmt.Fprintf(w, " (commit %s)", gitstore.Short(d.Commit))
	case f.repo == nil:
		fmt.Fprint(w, " (not committed: "+f.gitProblem()+")")
	}
	fmt.Fprintln(w)
}

func runShow(ctx context.Context, o *factOptions) error {
	e := o.env
	if handled, err := teamWhyShow(ctx, o, "show"); handled {
		return err
	}
	m, data, f, err := findFact(e, o.global, o.name)
	if err != nil {
		return err
	}
	uses := f.uses()
	chk := cite.NewChecker(workDir())
	note, data := f.gate().Shown(m, data)
	if o.json {
		return writeJSON(e.stdout, showJSON{facts.UsedViewOf(m, uses, chk), string(data), note})
	}
	fmt.Fprintf(e.stdout, "# %s — %s\n%s", m.File, uses[m.File].Text(), facts.SupersededLine(m))
	if st := facts.StalenessOf(chk.Check(m)); st.Stale {
		fmt.Fprintf(e.stdout, "# %s (memoryd check --confirm %s once it is checked)\n", st.Marker, m.Name)
	}
	if note != "" {
		fmt.Fprintf(e.stdout, "# %s\n", note)
	}
	_, err = e.stdout.Write(data)
	return err
}

// showJSON is what `memoryd show --json` prints: the fact's fields, as
// list --json gives them, and its file.
type showJSON struct {
	facts.UsedView
	Content string `json:"content"`
	// Gate is what the gate on the way out says of the fact: the secret
	// line it redacts, or that agents do not get it; absent for neither.
	Gate string `json:"gate,omitempty"`
}

// findFact resolves NAME|FILE to a fact of the folder and reads its file.
func findFact(e env, g globalFlags, name string) (*index.Memory, []byte, *folder, error) {
	f, err := openFolder(e, g)
	if err != nil {
		return nil, nil, nil, err
	}
	snap, err := index.Scan(f.dir)
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := facts.Find(snap, name)
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := index.ReadPlain(f.dir, m.File)
	return m, data, f, err
}

func runForget(ctx context.Context, o *factOptions) error {
	e := o.env
	if strings.TrimSpace(o.reason) == "" {
		return usageError{"say why it is forgotten: --reason WHY (it goes into the commit message)"}
	}
	f, w, err := factWriter(e, o.global)
	if err != nil {
		return err
	}
	d, err := w.Forget(ctx, o.name, o.reason, o.force)
	if err != nil {
		return factError(err)
	}
	printDone(e.stdout, f, d)
	return nil
}

// runEdit opens a copy of the fact in the user's editor; the fact is
// replaced only when the saved copy parses and passes the checks, and is
// still the version the copy was made from. On a failed save the editor
// opens again on the copy with the problem written at its top (for a fact
// changed meanwhile, with that change, and the next save made over it). What
// the person typed is never thrown away: when it is not saved the copy stays
// and its path is printed. An editor that fails, or a copy left unchanged,
// changes nothing.
func runEdit(ctx context.Context, o *factOptions) error {
	e := o.env
	m, data, f, err := findFact(e, o.global, o.name)
	if err != nil {
		return err
	}
	copyPath, err := facts.NewCopy(f.stateDir, m.File, data)
	if err != nil {
		return err
	}
	s := &facts.Edit{Writer: f.writer("cli"), Dir: f.dir, File: m.File, Copy: copyPath, Base: data, Hash: m.Hash,
		Editor: func(ctx context.Context, path string) error { return runEditor(ctx, e, path) },
		Saved:  func(d facts.Done) { printDone(e.stdout, f, d) }, Out: e.stdout, Err: e.stderr}
	saved, err := s.Run(ctx)
	if saved || !s.HoldsText() {
		os.Remove(s.Copy)
		return err
	}
	if err == nil {
		err = fmt.Errorf("%s is unchanged", m.File)
	}
	return fmt.Errorf("%w\nyour text is kept in %s", err, s.Copy)
}

// runEditor runs $VISUAL, else $EDITOR, else vi on path, on the terminal.
func runEditor(ctx context.Context, e env, path string) error {
	editor := e.getenv("VISUAL")
	if editor == "" {
		editor = e.getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "editor", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the editor (%s) failed: %v", strings.Fields(editor)[0], err)
	}
	return nil
}
