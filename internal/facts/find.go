package facts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// This file finds facts in a snapshot: by name, by file, and the one that
// already says what a new fact says.

// Find returns the fact name names: a file name ("user-email.md"), a file
// without ".md", or the name part ("email") when only one fact has it.
//
// Facts waiting for review in the inbox are not facts yet: Find never
// returns one (review finds them).
func Find(snap index.Snapshot, name string) (*index.Memory, error) {
	name = strings.TrimSpace(name)
	if index.InInbox(name) {
		return nil, fmt.Errorf("%w %q: it waits for review (memoryd review)", ErrNotFound, name)
	}
	for _, f := range []string{name, name + ".md"} {
		if m := ByFile(snap, f); m != nil {
			return m, nil
		}
	}
	var found []*index.Memory
	for _, m := range snap.Memories {
		if m.Name == name && !index.InInbox(m.File) {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("%w %q (memoryd list shows them)", ErrNotFound, name)
	}
	files := make([]string, len(found))
	for i, m := range found {
		files[i] = m.File
	}
	return nil, fmt.Errorf("%q names several facts (%s): give the file name", name, strings.Join(files, ", "))
}

// ByFile is the fact in file of snap (sorted by file, as every snapshot
// is), nil when there is none: the one lookup of a fact by its file.
func ByFile(snap index.Snapshot, file string) *index.Memory {
	i, ok := slices.BinarySearchFunc(snap.Memories, file, func(m *index.Memory, f string) int { return strings.Compare(m.File, f) })
	if !ok {
		return nil
	}
	return snap.Memories[i]
}

func unreadable(snap index.Snapshot, file string) error {
	for _, u := range snap.Unreadable {
		if u.File == file {
			return fmt.Errorf("%s exists but cannot be read (%v): fix or remove it first", file, u.Err)
		}
	}
	return nil
}

// duplicate returns the file other than self whose body or description has
// the same canonical text as f's.
func duplicate(snap index.Snapshot, self string, f Fact) string {
	body, desc := index.Canonical(f.Body), index.Canonical(f.Description)
	for _, m := range snap.Memories {
		if m.File != self && !m.Superseded() && (index.HasCanonical(m.Body, body) || index.HasCanonical(m.Description, desc)) {
			return m.File
		}
	}
	return ""
}

func oneLine(s string) string {
	return index.CleanText(strings.Join(strings.Fields(s), " "), false, 200)
}
