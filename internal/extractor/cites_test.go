package extractor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/index"
)

// TestExtractCitesOnlyFilesInsideTheRoot: the paths a model says a fact
// rests on are recorded with their blobs when they are files inside the
// session's project; a hostile answer — paths out of the root, absolute,
// through a link, into .git, missing, not strings, a thousand of them —
// neither crashes the pass nor cites anything outside.
func TestExtractCitesOnlyFilesInsideTheRoot(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "app")
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.WriteFile(filepath.Join(root, "src", "app.go"), []byte("package app\n"), 0o644)
	os.WriteFile(filepath.Join(base, "secret.txt"), []byte("outside\n"), 0o644)
	os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(root, "link.txt"))
	gittest.Run(t, root, "init", "-q")
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-qm", "start")
	blob := gittest.Run(t, root, "rev-parse", "HEAD:src/app.go")

	many := make([]string, 1000)
	for i := range many {
		many[i] = fmt.Sprintf("%q", fmt.Sprintf("../f%d", i))
	}
	answer := `{"memories": [
	  {"type": "project", "name": "entry", "description": "The app's entry point is in src/app.go", "body": "The entry point reads the config before it serves anything.",
	   "cites": ["src/app.go#main", "../secret.txt", "` + filepath.Join(base, "secret.txt") + `", "link.txt", ".git/config", "missing.go", "src", 7, {"path": "x"}, null, "src/app.go@0000000000000000000000000000000000000000"]},
	  {"type": "project", "name": "flood", "description": "A fact with a flood of cites for the app", "body": "The flood of cites must not crash the pass or cite anything.",
	   "cites": [` + strings.Join(many, ",") + `]},
	  {"type": "project", "name": "odd", "description": "A fact whose cites are not a list at all", "body": "Its cites field is an object, which reads as none.",
	   "cites": {"src/app.go": true}}
	]}`
	props, err := ParseAnswer(answer)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(props[1].Cites); n != maxCites {
		t.Fatalf("a flood of cites is read as %d paths, want at most %d", n, maxCites)
	}
	changes, rejected := plan(props, index.Snapshot{}, nil)
	if len(changes) != 3 {
		t.Fatalf("planned %d changes (rejected %v), want 3", len(changes), rejected)
	}
	stamp(changes, "opencode", "ses_1", filepath.Join(root, "src"), nil, time.Now())
	want := map[string]string{
		"project-entry.md": "  cites:\n    - src/app.go@" + blob + "#main\n    - src/app.go@" + blob + "\n---",
		"project-flood.md": "", "project-odd.md": "",
	}
	for _, c := range changes {
		text := string(c.Data)
		w, ok := want[c.File]
		switch {
		case !ok:
			t.Fatalf("unexpected change %s", c.File)
		case w == "" && strings.Contains(text, "  cites:"):
			t.Errorf("%s cites something:\n%s", c.File, text)
		case w != "" && !strings.Contains(text, w):
			t.Errorf("%s does not cite src/app.go alone:\n%s", c.File, text)
		}
		if strings.Contains(text, "secret") || strings.Contains(text, "link.txt") || strings.Contains(text, "../") {
			t.Errorf("%s cites outside the root:\n%s", c.File, text)
		}
	}
	// A fact of project app from a session in another folder cites
	// nothing: its paths are not relative to app's root.
	props[0].Project = "app"
	changes, _ = plan(props[:1], index.Snapshot{}, nil)
	stamp(changes, "opencode", "ses_2", t.TempDir(), nil, time.Now())
	if strings.Contains(string(changes[0].Data), "  cites:") {
		t.Fatalf("a fact cites files from a session in another folder:\n%s", changes[0].Data)
	}
}
