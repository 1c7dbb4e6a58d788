package facts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/secrets"
)

// editNote starts each line memoryd writes at the top of a copy it reopens
// after a failed save. Those lines are not the fact's: the parser accepts
// nothing before the frontmatter's "---", and stripNotes drops them before
// the copy is saved.
const editNote = "# memoryd:"

// Edit is one edit of a fact by a person (memoryd edit): the copy their
// editor opens, and the version of the fact a save of it replaces. On a
// failed save the editor opens again on the copy with the problem written
// at its top (for a fact changed meanwhile, with that change, and the next
// save made over it).
type Edit struct {
	Writer *Writer
	Dir    string // the memory folder
	File   string // the fact's file
	Copy   string // the copy the editor opens, holding Base at first
	Base   []byte // the version of the fact a save replaces (nil: none, it was removed)
	Hash   string // its hash (Memory.Hash, "" for none): Replace refuses another version
	// Editor runs the person's editor on path; Saved is told what a save
	// did; Err is where a failed save is explained before the editor
	// opens again, Out where an edit that changed nothing is said.
	Editor   func(ctx context.Context, path string) error
	Saved    func(Done)
	Out, Err io.Writer
	opened   []byte // the copy as the editor was given it
	failed   error  // why the last save failed, nil before one did
}

// Run runs the editor on the copy until a save succeeds or the person
// gives up. saved reports that the fact was written (the error then is a
// failed commit, which the daemon makes later).
func (s *Edit) Run(ctx context.Context) (saved bool, err error) {
	if s.opened == nil {
		s.opened = s.Base
	}
	for {
		if err := s.Editor(ctx, s.Copy); err != nil {
			return false, fmt.Errorf("%w; %s is unchanged", err, s.File)
		}
		edited, err := os.ReadFile(s.Copy)
		if err != nil {
			return false, err
		}
		text := stripNotes(edited)
		switch {
		case s.Base != nil && bytes.Equal(text, s.Base), bytes.Equal(edited, s.opened) && s.failed == nil:
			fmt.Fprintf(s.Out, "no change to %s\n", s.File)
			return false, nil
		case bytes.Equal(edited, s.opened):
			// Quit, or saved as it was reopened: the person gives up.
			return false, fmt.Errorf("%s is unchanged: %w", s.File, s.failed)
		}
		d, err := s.Writer.Replace(ctx, s.File, text, s.Hash)
		if err == nil || d.File != "" {
			s.Saved(d)
			return true, err
		}
		if ctx.Err() != nil || errors.Is(err, ErrReadonly) {
			return false, err // reopening cannot help
		}
		fmt.Fprintf(s.Err, "memoryd edit: %v\nopening the editor again with the problem at the top (quit without a change to give up; your text is kept)\n", err)
		if err := s.reopen(err, text); err != nil {
			return false, err
		}
	}
}

// reopen rewrites the copy for the next run of the editor: notes on why the
// save failed, then text, what the person saved. When the fact changed
// meanwhile the notes show how, and the next save is made over the version
// shown.
func (s *Edit) reopen(failed error, text []byte) error {
	s.failed = failed
	notes := []string{"Not saved: " + failed.Error()}
	line := 0 // the line of text the problem is on, 0 for none
	switch {
	case errors.Is(failed, index.ErrChanged):
		notes = append(notes, s.rebase()...)
	case errors.Is(failed, ErrBusy):
		notes = append(notes, "Another writer holds the memory folder. Delete these lines and save to try again.")
	case errors.Is(failed, ErrInvalid), errors.Is(failed, ErrSecret):
		line = problemLine(failed, text)
		notes = append(notes, "Fix the fact below and save to try again.")
	case errors.As(failed, new(*index.ParseError)):
		notes = append(notes, s.File+" itself does not parse now: fix it (or restore it with git), then save here to try again.")
	default:
		notes = append(notes, "Delete these lines and save to try again.")
	}
	notes = append(notes,
		`The lines starting "`+editNote+`" at the top are dropped when you save.`,
		"To give up, quit without a change: your text is then kept in "+s.Copy+".")
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
	if err := os.WriteFile(s.Copy, b.Bytes(), 0o600); err != nil {
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
	if !errors.Is(failed, ErrSecret) {
		return 0
	}
	if found := secrets.FindSecrets(string(text)); len(found) > 0 {
		return found[0].Line
	}
	return 0
}

// rebase takes the fact as it is now as the version the next save replaces
// and returns notes that show how it changed since the version before.
func (s *Edit) rebase() []string {
	cur, err := index.ReadPlain(s.Dir, s.File)
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.Base, s.Hash = nil, ""
		return []string{s.File + " was removed while you edited it: saving writes it again with your text."}
	case err != nil:
		return []string{"It cannot be read now: " + err.Error()}
	}
	m, err := index.Parse(s.File, cur)
	if err != nil {
		return []string{"It does not parse now: " + err.Error(), "Fix it first, then save here to try again."}
	}
	notes := []string{s.File + " was changed while you edited it. Its changes (- before, + now):"}
	for _, l := range strings.Split(strings.TrimSuffix(Diff(string(s.Base), string(cur)), "\n"), "\n") {
		notes = append(notes, "  "+l)
	}
	s.Base, s.Hash = cur, m.Hash
	return append(notes, "Merge what you want to keep of it into your text below and save: your save replaces it.")
}

// HoldsText reports whether the copy holds text the fact does not: what
// the person typed and did not save.
func (s *Edit) HoldsText() bool {
	data, err := os.ReadFile(s.Copy)
	return err != nil || s.Base == nil || !bytes.Equal(stripNotes(data), s.Base)
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
