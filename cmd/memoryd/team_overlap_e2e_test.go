package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTeamFactSupersedesPersonal: a team fact arrives that says what one of
// the person's facts says — accepted by Ann, pulled by Bo — and the
// person's fact is proposed for supersession in their review inbox, never
// changed on its own; accepting the proposal supersedes it.
func TestTeamFactSupersedesPersonal(t *testing.T) {
	a, b, aShop, bShop := teamWorlds(t)
	mine := memoryFile("feedback", "make-for-tests", "Tests are run with make test-all rather than go test", "go test alone lacks the database make test-all starts.")
	for _, w := range []*world{a, b} {
		w.write("feedback-make-for-tests.md", mine)
		w.git(w.notes, "add", "-A")
		w.git(w.notes, "commit", "-q", "-m", "mine")
	}
	// Ann: accepting the team's fact proposes superseding her own.
	cs, _ := a.mcpSession(aShop, "claude-code")
	if out, isErr := callTool(t, cs, "memory_save", testsRule); isErr {
		t.Fatalf("memory_save scope team: %s", out)
	}
	out, errOut, code := a.runIn(aShop, "", nil, "review", "accept", "tests-need-make")
	if code != 0 || !strings.Contains(out, "your feedback-make-for-tests.md says what the team's .memory/project-tests-need-make.md says") {
		t.Fatalf("review accept does not propose superseding Ann's fact: %d\n%s%s", code, out, errOut)
	}
	checkSupersedeProposal(t, a, mine)

	// Bo: the fact arrives by a pull; his next session start proposes it.
	a.git(aShop, "add", ".memory")
	a.git(aShop, "-c", "user.name=Ann", "commit", "-q", "-m", "team memory")
	a.git(aShop, "push", "-q", "origin", "HEAD:main")
	b.git(bShop, "pull", "-q", "origin", "main")
	ctx, errOut, code := b.runIn(bShop, "", nil, "context")
	if code != 0 || !strings.Contains(ctx, "(.memory/project-tests-need-make.md)") || !strings.Contains(errOut, "superseding it waits for your review") {
		t.Fatalf("Bo's session start does not propose superseding his fact: %d\n%s%s", code, ctx, errOut)
	}
	checkSupersedeProposal(t, b, mine)
	if _, errOut, _ := b.runIn(bShop, "", nil, "context"); strings.Contains(errOut, "superseding") {
		t.Fatalf("the next session start proposes it again:\n%s", errOut)
	}
	if out, errOut, code := b.runIn(bShop, "", nil, "review", "accept", "feedback-make-for-tests"); code != 0 {
		t.Fatalf("accept the supersession: %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(b.mem, "feedback-make-for-tests.md"))
	if !strings.Contains(string(data), "superseded_by: .memory/project-tests-need-make.md") {
		t.Fatalf("accepting did not supersede Bo's fact:\n%s", data)
	}
}

// checkSupersedeProposal: w's fact is as it was, and the inbox holds it
// marked as superseded by the team's fact.
func checkSupersedeProposal(t *testing.T, w *world, mine string) {
	t.Helper()
	if data, _ := os.ReadFile(filepath.Join(w.mem, "feedback-make-for-tests.md")); string(data) != mine {
		t.Fatalf("the person's fact changed without review:\n%s", data)
	}
	data, err := os.ReadFile(filepath.Join(w.mem, "_inbox", "feedback-make-for-tests.md"))
	if err != nil || !strings.Contains(string(data), "superseded_by: .memory/project-tests-need-make.md") {
		t.Fatalf("no proposal to supersede the person's fact: %v\n%s", err, data)
	}
	if list, _, _ := w.runIn(w.home, "", nil, "review"); !strings.Contains(list, "feedback-make-for-tests.md") {
		t.Fatalf("review does not list it:\n%s", list)
	}
}
