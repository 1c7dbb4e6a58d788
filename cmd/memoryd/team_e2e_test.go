package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// teamWorlds is two people, Ann and Bo, each with their own HOME and
// memory, and each with a clone of one project (shop) from one bare
// remote.
func teamWorlds(t *testing.T) (a, b *world, aShop, bShop string) {
	t.Helper()
	a, b = newWorld(t), newWorld(t)
	remote := filepath.Join(t.TempDir(), "shop.git")
	a.git(t.TempDir(), "init", "-q", "--bare", remote)
	aShop, bShop = filepath.Join(a.home, "src", "shop"), filepath.Join(b.home, "src", "shop")
	a.git(a.home, "clone", "-q", remote, aShop)
	a.write("main.go", "package main\n", aShop)
	a.git(aShop, "add", "main.go")
	a.git(aShop, "-c", "user.name=Ann", "commit", "-q", "-m", "start")
	a.git(aShop, "push", "-q", "origin", "HEAD:main")
	b.git(b.home, "clone", "-q", remote, bShop)
	return a, b, aShop, bShop
}

// memoryState is what a person's memory folder holds: its HEAD and its
// files, to tell that nothing changed.
func memoryState(w *world) string {
	var files []string
	filepath.WalkDir(w.mem, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return w.head() + "\n" + strings.Join(files, "\n") + "\n" + w.git(w.notes, "status", "--porcelain")
}

var testsRule = map[string]any{"scope": "team", "type": "project", "name": "tests-need-make",
	"description": "Run the tests with make test-all, never plain go test",
	"body":        "The integration tests need the database that make test-all starts."}

// TestTeamMemoryTwoPeople: Ann's agent proposes a team fact, Ann accepts
// it (memoryd commits nothing in the project), commits and pushes it by
// hand; Bo pulls and his agent gets it at session start, by recall, search
// and MCP, marked as the team's with Ann as its author, while Bo's own
// memory stays as it was. The same rule in other words, a joke Ann
// rejects and a proposal with a secret never reach the team's folder.
func TestTeamMemoryTwoPeople(t *testing.T) {
	a, b, aShop, bShop := teamWorlds(t)
	cs, _ := a.mcpSession(aShop, "claude-code")
	out, isErr := callTool(t, cs, "memory_save", testsRule)
	if isErr || !strings.Contains(out, "proposed _inbox/project-tests-need-make.md") {
		t.Fatalf("memory_save scope team: %v %s", isErr, out)
	}
	if _, err := os.Stat(filepath.Join(aShop, ".memory")); err == nil {
		t.Fatalf("a proposal wrote into the project's .memory/")
	}
	list, _, _ := a.runIn(aShop, "", nil, "review")
	if !strings.Contains(list, "[team shop: "+filepath.Join(aShop, ".memory")+"]") {
		t.Fatalf("review does not say where the proposal goes:\n%s", list)
	}
	head := a.git(aShop, "rev-parse", "HEAD")
	out, errOut, code := a.runIn(a.home, "", nil, "review", "accept", "tests-need-make")
	if code != 0 || !strings.Contains(out, "commit it with your change") {
		t.Fatalf("review accept: %d\n%s%s", code, out, errOut)
	}
	if a.git(aShop, "rev-parse", "HEAD") != head || a.git(aShop, "status", "--porcelain") != "?? .memory/" {
		t.Fatalf("memoryd changed the project's git: HEAD %s, status %q", a.git(aShop, "rev-parse", "HEAD"), a.git(aShop, "status", "--porcelain"))
	}
	idx, _ := os.ReadFile(filepath.Join(aShop, ".memory", "MEMORY.md"))
	if !strings.Contains(string(idx), "# Team memory — shop\n") || !strings.Contains(string(idx), "(project-tests-need-make.md)") {
		t.Fatalf(".memory/MEMORY.md:\n%s", idx)
	}

	// The same rule in other words, a joke, a secret.
	out, isErr = callTool(t, cs, "memory_save", map[string]any{"scope": "team", "type": "project", "name": "testing",
		"description": "Tests are run with make test-all rather than go test", "body": "go test alone lacks the database make test-all starts."})
	if !isErr || !strings.Contains(out, ".memory/project-tests-need-make.md") {
		t.Fatalf("the same rule in other words was not refused naming the first: %v %s", isErr, out)
	}
	if out, isErr = callTool(t, cs, "memory_save", map[string]any{"scope": "team", "type": "feedback", "name": "tabs-joke",
		"description": "Indent with exactly three tabs on Fridays", "body": "Said as a joke."}); isErr {
		t.Fatalf("joke proposal: %s", out)
	}
	if out, _, code := a.runIn(aShop, "", nil, "review", "reject", "tabs-joke", "--reason", "a joke"); code != 0 {
		t.Fatalf("reject: %s", out)
	}
	secret := "---\nname: staging-db\ndescription: The staging database login\nmetadata:\n  team: \"" + aShop + "\"\n  type: project\n---\npassword: hunter2-Staging-99!\n"
	a.write("project-staging-db.md", secret, filepath.Join(a.mem, "_inbox"))
	if out, errOut, code := a.runIn(aShop, "", nil, "review", "accept", "staging-db"); code == 0 || !strings.Contains(errOut, "cannot be accepted") {
		t.Fatalf("a proposal with a secret was accepted: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(aShop, ".memory", "project-staging-db.md")); err == nil {
		t.Fatalf("the secret reached .memory/")
	}

	// A fact that cites a file of the project.
	if out, isErr = callTool(t, cs, "memory_save", map[string]any{"scope": "team", "type": "reference", "name": "entry-point",
		"description": "The program starts in main.go", "body": "main.go holds func main.", "cites": []string{"main.go"}}); isErr {
		t.Fatalf("proposal with cites: %s", out)
	}
	if out, errOut, code := a.runIn(aShop, "", nil, "review", "accept", "entry-point"); code != 0 {
		t.Fatalf("accept entry-point: %s%s", out, errOut)
	}

	// Ann commits and pushes by hand; Bo pulls.
	a.git(aShop, "add", ".memory")
	a.git(aShop, "-c", "user.name=Ann", "commit", "-q", "-m", "team memory: how to run the tests")
	a.git(aShop, "push", "-q", "origin", "HEAD:main")
	bBefore := memoryState(b)
	b.git(bShop, "pull", "-q", "origin", "main")
	if names, _ := os.ReadDir(filepath.Join(bShop, ".memory")); len(names) != 3 {
		t.Fatalf("Bo's .memory/ holds %v; want the two facts and MEMORY.md (no joke, no secret)", names)
	}

	ctx, errOut, code := b.runIn(bShop, "", nil, "context")
	if code != 0 || !strings.Contains(ctx, "# Team memory — shop") ||
		!strings.Contains(ctx, "[Tests need make](.memory/project-tests-need-make.md) — Run the tests with make test-all, never plain go test (team, added by Ann in ") {
		t.Fatalf("Bo's context lacks the team fact with Ann as author: %d\n%s%s", code, ctx, errOut)
	}
	if strings.Contains(ctx, "may be stale") {
		t.Fatalf("a team fact is marked stale before its file changed:\n%s", ctx)
	}
	search, _, _ := b.runIn(bShop, "", nil, "search", "make", "test")
	if !strings.Contains(search, ".memory/project-tests-need-make.md") || !strings.Contains(search, "[team]") || !strings.Contains(search, "added by Ann") {
		t.Fatalf("Bo's search:\n%s", search)
	}
	why, _, _ := b.runIn(bShop, "", nil, "why", "tests-need-make")
	if !strings.Contains(why, "added by Ann in "+b.git(bShop, "rev-parse", "HEAD")) {
		t.Fatalf("why names no author and commit:\n%s", why)
	}
	bs, _ := b.mcpSession(bShop, "claude-code")
	if out, _ := callTool(t, bs, "memory_search", map[string]any{"query": "how do we run the tests"}); !strings.Contains(out, ".memory/project-tests-need-make.md") || !strings.Contains(out, "[team, added by Ann") {
		t.Fatalf("Bo's memory_search:\n%s", out)
	}
	if out, isErr := callTool(t, bs, "memory_read", map[string]any{"file": "team:project-tests-need-make.md"}); isErr || !strings.Contains(out, "database that make test-all starts") {
		t.Fatalf("Bo's memory_read team: %v %s", isErr, out)
	}

	// Recall: with a budget that leaves the fact out of the session's
	// index, the prompt brings it.
	b.writeConfig("index:\n  max_lines: 5\n")
	if ctx, _, _ := b.runIn(bShop, "", nil, "context"); strings.Contains(ctx, "(.memory/project-tests-need-make.md)") {
		t.Fatalf("the index should leave the team fact out at 5 lines:\n%s", ctx)
	}
	out, errOut, code = b.runIn(bShop, hookPayload("s1", bShop, "how do I run the tests with make?"), nil, "recall", "--format", "text")
	if code != 0 || !strings.Contains(out, ".memory/project-tests-need-make.md") || !strings.Contains(out, "team, added by Ann") {
		t.Fatalf("Bo's recall: %d\n%s%s", code, out, errOut)
	}
	b.writeConfig("")

	// Ann changes the cited file; after Bo pulls, the fact is marked.
	a.write("main.go", "package main\n\nfunc main() {}\n", aShop)
	a.git(aShop, "-c", "user.name=Ann", "commit", "-q", "-am", "main")
	a.git(aShop, "push", "-q", "origin", "HEAD:main")
	b.git(bShop, "pull", "-q", "origin", "main")
	if ctx, _, _ := b.runIn(bShop, "", nil, "context"); !strings.Contains(ctx, "(.memory/reference-entry-point.md) — The program starts in main.go (team, added by Ann in ") ||
		!strings.Contains(ctx, ") (may be stale: main.go changed since ") {
		data, _ := os.ReadFile(filepath.Join(bShop, ".memory", "reference-entry-point.md"))
		t.Fatalf("the team fact citing main.go is not marked stale after the pull:\n%s\n%s", ctx, data)
	}
	if after := memoryState(b); after != bBefore {
		t.Fatalf("Bo's own memory changed:\n%s\n---\n%s", bBefore, after)
	}
}
