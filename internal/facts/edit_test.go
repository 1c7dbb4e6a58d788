package facts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestEditNotesStripExactly: the notes a reopened copy starts with come off
// exactly, whatever the text under them, so a save never holds them and
// never loses a byte of the text.
func TestEditNotesStripExactly(t *testing.T) {
	fact := "---\nname: shell\ndescription: Uses zsh\n---\nUses zsh.\n"
	texts := []string{
		fact,
		"\ufeff" + fact,
		strings.ReplaceAll(fact, "\n", "\r\n"),
		fact + "# memoryd: a line of the body\n",
		"---\nname: [broken\n---\nno newline at the end",
		"",
	}
	failed := fmt.Errorf("%w: %w", ErrInvalid, &index.ParseError{File: "user-shell.md", Line: 2, Msg: "invalid YAML:\ntwo lines"})
	for _, text := range texts {
		s := &Edit{File: "user-shell.md", Copy: filepath.Join(t.TempDir(), "edit-1-user-shell.md"), Base: []byte(fact)}
		if err := s.reopen(failed, []byte(text)); err != nil {
			t.Fatal(err)
		}
		reopened := readFile(t, s.Copy)
		if !strings.HasPrefix(reopened, "# memoryd: Not saved: ") || !strings.Contains(reopened, "\n# memoryd: two lines\n") {
			t.Errorf("the notes do not hold the problem:\n%s", reopened)
		}
		if got := string(stripNotes([]byte(reopened))); got != text {
			t.Errorf("stripped %q, want %q", got, text)
		}
		if got := string(stripNotes([]byte("\ufeff" + reopened))); got != text {
			t.Errorf("with a byte order mark before the notes, stripped %q, want %q", got, text)
		}
	}
}
