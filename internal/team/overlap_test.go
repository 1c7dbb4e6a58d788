package team

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memoryd/memoryd/internal/memtest"
)

// TestOverlapsFindsThePersonsRepeatOnce: a person's fact saying the team's
// rule in other words is found; one of another project and an unrelated one
// are not; a second look at the same folder compares nothing but what
// CompareAgain names, and a team fact that arrives later is compared then.
func TestOverlapsFindsThePersonsRepeatOnce(t *testing.T) {
	ctx := context.Background()
	f := newProject(t, map[string]string{"project-tests-need-make.md": testsRule})
	mine, stateDir := t.TempDir(), t.TempDir()
	same := memtest.Fact("feedback", "make-for-tests", "Tests are run with make test-all rather than go test", "go test alone lacks the database make test-all starts.")
	write(t, filepath.Join(mine, "feedback-make-for-tests.md"), same)
	write(t, filepath.Join(mine, "project-other.md"), "---\nname: other\ndescription: Tests are run with make test-all rather than go test\nmetadata:\n  type: project\n  project: elsewhere\n---\nIn another repository.\n")
	write(t, filepath.Join(mine, "user-coffee.md"), memtest.Fact("user", "coffee", "Drinks oat-milk flat whites", "Never sugar."))

	got, err := f.Overlaps(ctx, stateDir, mine)
	if err != nil || len(got) != 1 || got[0] != (Overlap{Team: ".memory/project-tests-need-make.md", Personal: "feedback-make-for-tests.md"}) {
		t.Fatalf("Overlaps = %+v, %v; want the person's make-for-tests", got, err)
	}
	if got, err := f.Overlaps(ctx, stateDir, mine); err != nil || len(got) != 0 {
		t.Fatalf("Overlaps again = %+v, %v; want nothing: that fact was compared", got, err)
	}
	if err := f.CompareAgain(stateDir, []string{".memory/project-tests-need-make.md"}); err != nil {
		t.Fatal(err)
	}
	if got, err := f.Overlaps(ctx, stateDir, mine); err != nil || len(got) != 1 {
		t.Fatalf("Overlaps after CompareAgain = %+v, %v; want it found again", got, err)
	}
	write(t, filepath.Join(mine, "user-tea.md"), memtest.Fact("user", "tea", "Drinks green tea after lunch", "Sencha."))
	write(t, filepath.Join(f.Dir, "user-tea-time.md"), memtest.Fact("user", "tea-time", "The team drinks green tea after lunch", "Sencha, always."))
	got, err = f.Overlaps(ctx, stateDir, mine)
	if err != nil || len(got) != 1 || got[0].Personal != "user-tea.md" {
		t.Fatalf("Overlaps after a team fact arrived = %+v, %v; want user-tea.md", got, err)
	}
}
