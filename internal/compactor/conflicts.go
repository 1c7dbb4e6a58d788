package compactor

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// conflictsHeader starts a new _CONFLICTS.md. It holds no "## " line, so
// it counts as no contradiction in the index banner.
const conflictsHeader = "# Unresolved contradictions\n\n" +
	"Each section below is a contradiction between memory files that nobody has settled yet.\n" +
	"Settle one by fixing the files, then delete its section.\n"

// Bounds of _CONFLICTS.md: a note is cut to maxNote bytes, and a flag that
// would make the file larger than maxConflicts is skipped (a file over
// index.MaxFileSize could not be read back, and every later flag would
// fail).
const (
	maxNote      = 2000
	maxConflicts = index.MaxFileSize / 2
)

// conflictTitle is a flag's section heading: the same files give the same
// heading, whatever their order, so a contradiction is flagged only once.
func conflictTitle(files []string) string {
	return "## Contradiction: " + strings.Join(slices.Sorted(slices.Values(files)), ", ")
}

// conflictSection is the section a flag appends: the heading, a link per
// file and the note quoted, so that no line of the note can start a new
// section.
func conflictSection(files []string, note string) string {
	var b strings.Builder
	b.WriteString(conflictTitle(files) + "\n\n")
	for _, f := range slices.Sorted(slices.Values(files)) {
		target := f
		if strings.ContainsAny(f, " ()<>") {
			target = "<" + f + ">"
		}
		b.WriteString("- [" + f + "](" + target + ")\n")
	}
	b.WriteString("\n")
	note = index.CleanText(strings.TrimSpace(note), true, maxNote)
	for line := range strings.SplitSeq(note, "\n") {
		b.WriteString(strings.TrimRight("> "+strings.TrimRight(line, " \t\r"), " ") + "\n")
	}
	return b.String()
}

// flag appends the op's section to _CONFLICTS.md. Both files stay as they
// are: a contradiction is never resolved here.
func (a *applier) flag(p *planned) error {
	for _, m := range p.mems {
		if _, err := a.tx.Read(m.File); err != nil {
			return skipf("%s: gone since the plan was made", m.File)
		}
	}
	old, err := a.tx.Read(index.ConflictsFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return skipf("%s: %v", index.ConflictsFile, err)
	}
	title := conflictTitle(p.Files)
	for line := range strings.SplitSeq(string(old), "\n") {
		if strings.TrimRight(line, " \t\r") == title {
			return skipf("already flagged in %s", index.ConflictsFile)
		}
	}
	var b bytes.Buffer
	if len(bytes.TrimSpace(old)) == 0 {
		b.WriteString(conflictsHeader)
	} else {
		b.Write(bytes.TrimRight(old, "\n"))
		b.WriteString("\n")
	}
	b.WriteString("\n" + conflictSection(p.Files, p.Note))
	if b.Len() > maxConflicts {
		return skipf("%s is full (%d bytes); settle some contradictions first", index.ConflictsFile, len(old))
	}
	if err := a.save(index.ConflictsFile); err != nil {
		return err
	}
	// Not a memory file: written as it is, committed by the transaction.
	if err := a.tx.Restore(index.ConflictsFile, b.Bytes()); err != nil {
		return err
	}
	a.touched[index.ConflictsFile] = true
	return nil
}
