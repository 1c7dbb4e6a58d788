package folder

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// The rule for a folder that is not a memory folder. memoryd writes
// MEMORY.md, PROTOCOL.md and facts into the folder it is given, commits it
// and extracts into it, so pointing it at a notes root or a home folder by
// mistake would mix its files with the user's. Refused:
//
//   - the home folder itself;
//   - a folder whose top level holds at least notesMin markdown files that
//     are not facts (no frontmatter: they do not start with "---") and more
//     of them than facts — a notes root.
//
// Accepted: an empty or new folder, and a memory folder with a few odd
// files (a README.md beside its facts). Only the top level counts (a notes
// root's subfolders are its own business), memoryd's reserved files
// (MEMORY.md, PROTOCOL.md, …) count as neither, and at most sampleMax
// markdown files are opened, four bytes each, so a large store costs little.
const (
	notesMin  = 3
	sampleMax = 200
)

// Suitable returns why dir must not be used as a memory folder,
// or nil. home is $HOME ("" skips that check).
func Suitable(dir, home string) error {
	if home != "" {
		if h, err := state.RealPath(home); err == nil && h == dir {
			return fmt.Errorf("%s is your home folder, not a memory folder: memoryd writes MEMORY.md and commits there; use a folder of its own, e.g. %s", dir, filepath.Join(dir, "notes", "memory"))
		}
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil // the command's own open says what is wrong
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	var facts, notes int
	var examples []string
	seen := 0
	for _, n := range names {
		if !strings.HasSuffix(n, ".md") || index.Ignored(n) || index.Reserved(n) {
			continue
		}
		if seen++; seen > sampleMax {
			break
		}
		if startsWithFrontmatter(filepath.Join(dir, n)) {
			facts++
			continue
		}
		notes++
		if len(examples) < 3 {
			examples = append(examples, n)
		}
	}
	if notes >= notesMin && notes > facts {
		return fmt.Errorf("%s does not look like a memory folder: it holds %d markdown file(s) that are not facts (no frontmatter: %s) and %d fact(s) — a notes folder? memoryd writes MEMORY.md and facts there and commits them; use a folder of its own, e.g. %s",
			dir, notes, strings.Join(examples, ", "), facts, filepath.Join(dir, "memory"))
	}
	return nil
}

// startsWithFrontmatter reports whether the file at path begins with "---".
func startsWithFrontmatter(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 3)
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return bytes.Equal(head, []byte("---"))
}
