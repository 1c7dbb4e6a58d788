package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/state"
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
		fmt.Fprintf(w, " (commit %s)", short(d.Commit))
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
	note, data := shownFact(f, m, data)
	if o.json {
		return writeJSON(e.stdout, showJSON{usedFactOf(m, uses, chk), string(data), note})
	}
	fmt.Fprintf(e.stdout, "# %s — %s\n%s", m.File, usesText(uses[m.File]), supersededLine(m))
	if st := stalenessOf(chk.Check(m)); st.Stale {
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
	usedFactJSON
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
	// The copy lives in the state folder (private, outside the watched
	// memory folder), which does not exist yet where nothing ran before.
	if err := state.Ensure(f.stateDir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.stateDir, "edit-*-"+filepath.Base(m.File))
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	s := &editSession{e: e, f: f, w: f.writer("cli"), file: m.File, copy: tmp.Name(), base: data, hash: m.Hash, opened: data}
	saved, err := s.loop(ctx)
	if saved || !s.holdsText() {
		os.Remove(s.copy)
		return err
	}
	if err == nil {
		err = fmt.Errorf("%s is unchanged", m.File)
	}
	return fmt.Errorf("%w\nyour text is kept in %s", err, s.copy)
}

// editNote starts each line memoryd writes at the top of a copy it reopens
// after a failed save. Those lines are not the fact's: the parser accepts
// nothing before the frontmatter's "---", and stripNotes drops them before
// the copy is saved.
const editNote = "# memoryd:"

// editSession is one memoryd edit: the copy, and the version of the fact a
// save of it replaces.
type editSession struct {
	e      env
	f      *folder
	w      *facts.Writer
	file   string // the fact's file
	copy   string // the copy the editor opens
	base   []byte // the version of the fact a save replaces (nil: none, it was removed)
	hash   string // its hash (Memory.Hash, "" for none): Replace refuses another version
	opened []byte // the copy as the editor was given it
	failed error  // why the last save failed, nil before one did
}

// loop runs the editor on the copy until a save succeeds or the person
// gives up. saved reports that the fact was written (the error then is a
// failed commit, which the daemon makes later).
func (s *editSession) loop(ctx context.Context) (saved bool, err error) {
	for {
		if err := runEditor(ctx, s.e, s.copy); err != nil {
			return false, fmt.Errorf("%w; %s is unchanged", err, s.file)
		}
		edited, err := os.ReadFile(s.copy)
		if err != nil {
			return false, err
		}
		text := stripNotes(edited)
		switch {
		case s.base != nil && bytes.Equal(text, s.base), bytes.Equal(edited, s.opened) && s.failed == nil:
			fmt.Fprintf(s.e.stdout, "no change to %s\n", s.file)
			return false, nil
		case bytes.Equal(edited, s.opened):
			// Quit, or saved as it was reopened: the person gives up.
			return false, fmt.Errorf("%s is unchanged: %w", s.file, s.failed)
		}
		d, err := s.w.Replace(ctx, s.file, text, s.hash)
		if err == nil || d.File != "" {
			printDone(s.e.stdout, s.f, d)
			return true, err
		}
		if ctx.Err() != nil || errors.Is(err, facts.ErrReadonly) {
			return false, err // reopening cannot help
		}
		fmt.Fprintf(s.e.stderr, "memoryd edit: %v\nopening the editor again with the problem at the top (quit without a change to give up; your text is kept)\n", err)
		if err := s.reopen(err, text); err != nil {
			return false, err
		}
	}
}

// reopen rewrites the copy for the next run of the editor: notes on why the
// save failed, then text, what the person saved. When the fact changed
// meanwhile the notes show how, and the next save is made over the version
// shown.
func (s *editSession) reopen(failed error, text []byte) error {
	s.failed = failed
	notes := []string{"Not saved: " + failed.Error()}
	line := 0 // the line of text the problem is on, 0 for none
	switch {
	case errors.Is(failed, index.ErrChanged):
		notes = append(notes, s.rebase()...)
	case errors.Is(failed, facts.ErrBusy):
		notes = append(notes, "Another writer holds the memory folder. Delete these lines and save to try again.")
	case errors.Is(failed, facts.ErrInvalid), errors.Is(failed, facts.ErrSecret):
		line = problemLine(failed, text)
		notes = append(notes, "Fix the fact below and save to try again.")
	case errors.As(failed, new(*index.ParseError)):
		notes = append(notes, s.file+" itself does not parse now: fix it (or restore it with git), then save here to try again.")
	default:
		notes = append(notes, "Delete these lines and save to try again.")
	}
	notes = append(notes,
		`The lines starting "`+editNote+`" at the top are dropped when you save.`,
		"To give up, quit without a change: your text is then kept in "+s.copy+".")
	lines := strings.Split(strings.Join(notes, "\n"), "\n")
	if line > 0 {
		// The problem's line counts from the fact's first line, below the notes.
		lines = slices.Insert(lines, 1, fmt.Sprintf("(Line %d of the fact is line %d of this file, below these notes.)", line, line+len(lines)+1))
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(strings.TrimRight(editNote+" "+l, " ") + "\n")
	}
	b.Write(text)
	if err := os.WriteFile(s.copy, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("%w; the save failed: %w", err, failed)
	}
	s.opened = b.Bytes()
	return nil
}

// problemLine is the line of text a check refused, 0 when the error
// names none.
func problemLine(failed error, text []byte) int {
	var pe *index.ParseError
	if errors.As(failed, &pe) {
		return pe.Line
	}
	if !errors.Is(failed, facts.ErrSecret) {
		return 0
	}
	if found := secrets.FindSecrets(string(text)); len(found) > 0 {
		return found[0].Line
	}
	return 0
}

// rebase takes the fact as it is now as the version the next save replaces
// and returns notes that show how it changed since the version before.
func (s *editSession) rebase() []string {
	cur, err := index.ReadPlain(s.f.dir, s.file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.base, s.hash = nil, ""
		return []string{s.file + " was removed while you edited it: saving writes it again with your text."}
	case err != nil:
		return []string{"It cannot be read now: " + err.Error()}
	}
	m, err := index.Parse(s.file, cur)
	if err != nil {
		return []string{"It does not parse now: " + err.Error(), "Fix it first, then save here to try again."}
	}
	notes := []string{s.file + " was changed while you edited it. Its changes (- before, + now):"}
	for _, l := range strings.Split(strings.TrimSuffix(facts.Diff(string(s.base), string(cur)), "\n"), "\n") {
		notes = append(notes, "  "+l)
	}
	s.base, s.hash = cur, m.Hash
	return append(notes, "Merge what you want to keep of it into your text below and save: your save replaces it.")
}

// holdsText reports whether the copy holds text the fact does not: what
// the person typed and did not save.
func (s *editSession) holdsText() bool {
	data, err := os.ReadFile(s.copy)
	return err != nil || s.base == nil || !bytes.Equal(stripNotes(data), s.base)
}

// stripNotes drops the editNote lines at the top of a copy (and a byte
// order mark an editor put before them).
func stripNotes(data []byte) []byte {
	if bom := []byte("\ufeff" + editNote); bytes.HasPrefix(data, bom) {
		data = data[len("\ufeff"):]
	}
	for bytes.HasPrefix(data, []byte(editNote)) {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	return data
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
