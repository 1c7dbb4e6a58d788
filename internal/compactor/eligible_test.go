package compactor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestSubfoldersAndIgnoredFilesAreLeftAlone: files in subfolders and files
// git ignores are neither sent to the model nor changed, whatever the plan
// says; no checkpoint could bring an ignored file back.
func TestSubfoldersAndIgnoredFilesAreLeftAlone(t *testing.T) {
	files := store()
	var sent string
	f := newFixture(t, files, func(r llmtest.Recorded) llmtest.Reply {
		sent = string(r.Raw)
		return plan(
			map[string]any{"op": "delete", "file": "team/user-other.md", "reason": "stale"},
			map[string]any{"op": "rewrite", "file": "team/user-shared.md", "body": "x", "reason": "tidy"},
			map[string]any{"op": "delete", "file": "user-private.md", "reason": "stale"},
			map[string]any{"op": "rewrite", "file": "user-secret-notes.md", "body": "x", "reason": "tidy"},
			map[string]any{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"},
		)
	})
	os.MkdirAll(filepath.Join(f.dir, "team"), 0o755)
	f.write("team/user-other.md", mem("user", "other", "Other person", "Bo uses fish."))
	f.write("team/user-shared.md", mem("user", "shared", "Shared fact", "The team meets on Mondays."))
	git(t, f.root, "add", "-A")
	git(t, f.root, "commit", "-q", "-m", "team folder")
	os.WriteFile(filepath.Join(f.root, ".gitignore"), []byte("memory/user-private.md\nmemory/user-secret-*.md\n"), 0o644)
	private := mem("user", "private", "Private", "Only on this machine.")
	notes := mem("user", "secret-notes", "Notes", "Kept out of git on purpose.")
	f.write("user-private.md", private)
	f.write("user-secret-notes.md", notes)

	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Superseded != 1 || res.Rewrote != 0 || res.LeftOut != 4 {
		t.Fatalf("result %+v", res)
	}
	if !f.exists("team/user-other.md") || !strings.Contains(f.read("team/user-shared.md"), "Mondays") {
		t.Error("a file in a subfolder was changed")
	}
	if f.read("user-private.md") != private || f.read("user-secret-notes.md") != notes {
		t.Error("an ignored file was changed")
	}
	for _, name := range []string{"user-other.md", "user-shared.md", "user-private.md", "user-secret-notes.md"} {
		if strings.Contains(sent, name) {
			t.Errorf("%s was sent to the model", name)
		}
	}
}
