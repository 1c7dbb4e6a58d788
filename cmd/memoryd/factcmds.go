package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
)

func init() {
	register(&command{
		name:    "add",
		args:    "--type=T --name=N --description=D [--project=SLUG] [--global] [--replace] [BODY|-]",
		summary: "Add a fact (the body from the argument, or from stdin with -) and commit it.",
		flags: func(fs *flag.FlagSet) {
			fs.String("type", "", "user, feedback, project or reference")
			fs.String("name", "", "kebab-case name; the file is TYPE-NAME.md")
			fs.String("description", "", "the one line the index shows")
			fs.Bool("replace", false, "replace an existing fact of the same type and name")
			fs.String("project", "", "the project `SLUG` the fact holds in (default for type project: the current directory's project)")
			fs.Bool("global", false, "a fact for every project, even of type project")
		},
		run: runAdd,
	})
	register(&command{name: "show", args: "NAME|FILE", summary: "Print a fact's file.", run: runShow})
	register(&command{
		name: "edit", args: "NAME|FILE", run: runEdit,
		summary: "Open a fact in $VISUAL or $EDITOR; it is checked when you save and committed.",
	})
	register(&command{
		name: "forget", args: "NAME|FILE --reason=TEXT", run: runForget,
		summary: "Delete a fact, with the reason in the commit.",
		flags: func(fs *flag.FlagSet) {
			fs.String("reason", "", "why the fact is no longer true or useful")
			fs.Bool("force", false, "delete a fact git ignores, which cannot be undone from the history")
		},
	})
}

// factWriter is the fact writer for the folder the flags name.
func factWriter(e env, fs *flag.FlagSet) (*folder, *facts.Writer, error) {
	f, err := openFolder(e, fs)
	if err != nil {
		return nil, nil, err
	}
	return f, f.writer("cli"), nil
}

func runAdd(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	body, err := bodyArg(e, args)
	if err != nil {
		return err
	}
	f, w, err := factWriter(e, fs)
	if err != nil {
		return err
	}
	fact := facts.Fact{Type: flagString(fs, "type"), Name: flagString(fs, "name"),
		Description: flagString(fs, "description"), Body: body, Project: flagString(fs, "project")}
	if flagString(fs, "global") == "true" {
		fact.Project = ""
	} else if fact.Project == "" && fact.Type == "project" {
		fact.Project = scope(fs)
	}
	d, err := w.Save(ctx, fact, flagString(fs, "replace") == "true")
	if err != nil {
		return factError(err)
	}
	printDone(e.stdout, f, d)
	return nil
}

// bodyArg is the body given as the one argument, or read from stdin for "-".
func bodyArg(e env, args []string) (string, error) {
	switch {
	case len(args) == 0:
		return "", usageError{"give the body as an argument, or - to read it from stdin"}
	case len(args) > 1:
		return "", usageError{"give the body as one argument (quote it)"}
	case args[0] != "-":
		return args[0], nil
	}
	b, err := io.ReadAll(io.LimitReader(e.stdin, facts.MaxBody+1))
	return string(b), err
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

func runShow(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	m, data, _, err := findFact(e, fs, args)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "# %s\n", m.File)
	_, err = e.stdout.Write(data)
	return err
}

// findFact resolves the one NAME|FILE argument to a fact of the folder and
// reads its file.
func findFact(e env, fs *flag.FlagSet, args []string) (*index.Memory, []byte, *folder, error) {
	if len(args) != 1 {
		return nil, nil, nil, usageError{"name one fact: NAME or FILE"}
	}
	f, err := openFolder(e, fs)
	if err != nil {
		return nil, nil, nil, err
	}
	st := index.NewStore(f.dir)
	if err := st.Scan(); err != nil {
		return nil, nil, nil, err
	}
	m, err := facts.Find(st.Snapshot(), args[0])
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := index.ReadPlain(f.dir, m.File)
	return m, data, f, err
}

func runForget(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	if len(args) != 1 {
		return usageError{"name one fact: NAME or FILE"}
	}
	if strings.TrimSpace(flagString(fs, "reason")) == "" {
		return usageError{"say why it is forgotten: --reason WHY (it goes into the commit message)"}
	}
	f, w, err := factWriter(e, fs)
	if err != nil {
		return err
	}
	d, err := w.Forget(ctx, args[0], flagString(fs, "reason"), flagBool(fs, "force"))
	if err != nil {
		return factError(err)
	}
	printDone(e.stdout, f, d)
	return nil
}

// runEdit opens a copy of the fact in the user's editor; the fact is
// replaced only when the saved copy parses and passes the checks. On a
// problem the editor opens again on the copy, with the problem on the
// terminal; an editor that fails, or a copy left unchanged, changes nothing.
func runEdit(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	m, data, f, err := findFact(e, fs, args)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.stateDir, "edit-*-"+filepath.Base(m.File))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	tmp.Write(data)
	tmp.Close()
	w := f.writer("cli")
	for {
		done, edited, err := editOnce(ctx, e, f, w, m, tmp.Name(), data)
		if done || err != nil {
			return err
		}
		data = edited
	}
}

// editOnce runs the editor on the copy once and replaces the fact with it
// when it changed and passes the checks. done is false, with the copy's
// bytes, when the editor must open again on a problem it printed.
func editOnce(ctx context.Context, e env, f *folder, w *facts.Writer, m *index.Memory, copyPath string, before []byte) (done bool, edited []byte, err error) {
	if err := runEditor(ctx, e, copyPath); err != nil {
		return true, nil, fmt.Errorf("%w; %s is unchanged", err, m.File)
	}
	if edited, err = os.ReadFile(copyPath); err != nil {
		return true, nil, err
	}
	if string(edited) == string(before) {
		fmt.Fprintf(e.stdout, "no change to %s\n", m.File)
		return true, nil, nil
	}
	d, err := w.Replace(ctx, m.File, edited, m.Hash)
	switch {
	case err == nil:
		printDone(e.stdout, f, d)
		return true, nil, nil
	case !errors.Is(err, facts.ErrInvalid) && !errors.Is(err, facts.ErrSecret):
		return true, nil, err
	}
	fmt.Fprintf(e.stderr, "memoryd edit: %v\nopening the editor again (save it unchanged, or quit without saving, to give up)\n", err)
	return false, edited, nil
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
