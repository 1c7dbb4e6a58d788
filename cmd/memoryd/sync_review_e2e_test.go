package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncConflictInSubfolderReviewAcceptsInPlace: a fact in a subfolder of
// the memory folder changed on both machines; its conflict copy waits under
// the same subfolder in _inbox/, and review accept writes it over that
// fact, not a new one at the folder's top.
func TestSyncConflictInSubfolderReviewAcceptsInPlace(t *testing.T) {
	_, a, b := syncWorlds(t)
	const fact = "projects/x/project-build.md"
	for _, w := range []*world{a, b} {
		if err := os.MkdirAll(filepath.Join(w.mem, "projects", "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a.write(fact, memoryFile("project", "build", "how x builds", "make"))
	a.git(a.notes, "add", "-A")
	a.git(a.notes, "commit", "-q", "-m", "build fact")
	if out, code := a.runCmd(nil, "sync"); code != 0 {
		t.Fatalf("sync on A (%d):\n%s", code, out)
	}
	if out, code := b.runCmd(nil, "sync"); code != 0 || !strings.Contains(b.read(fact), "make") {
		t.Fatalf("sync on B (%d):\n%s", code, out)
	}
	// Both change it; A's reaches the remote first.
	a.write(fact, memoryFile("project", "build", "how x builds", "make all"))
	a.git(a.notes, "commit", "-q", "-am", "build on A")
	b.write(fact, memoryFile("project", "build", "how x builds", "ninja"))
	b.git(b.notes, "commit", "-q", "-am", "build on B")
	if out, code := a.runCmd(nil, "sync"); code != 0 {
		t.Fatalf("sync on A (%d):\n%s", code, out)
	}
	stdout, _, code := b.runCmd2(nil, "sync", "--json")
	rep := syncReportOf(t, stdout)
	if code != 0 || len(rep.Review) != 1 || rep.Review[0] != "_inbox/"+fact {
		t.Fatalf("sync --json on B (%d): %s", code, stdout)
	}
	if !strings.Contains(b.read(fact), "make all") || !strings.Contains(b.read("_inbox/"+fact), "ninja") {
		t.Fatalf("after the merge: fact %q, inbox %q", b.read(fact), b.read("_inbox/"+fact))
	}
	// Review says where the two versions come from: this machine's
	// (its host name) and the remote's (its name and where it is).
	host, _ := os.Hostname()
	remote := b.git(b.notes, "config", "--get", "remote.origin.url")
	want := "changed on both machines: this machine's version (" + host + ") vs the remote's (origin, " + remote + ")"
	if out, code := b.runCmd(nil, "review"); code != 0 || !strings.Contains(out, "_inbox/"+fact) || !strings.Contains(out, want) {
		t.Fatalf("review (%d) does not say %q:\n%s", code, want, out)
	}
	if out, code := b.runCmd(nil, "review", "accept", fact); code != 0 {
		t.Fatalf("review accept (%d):\n%s", code, out)
	}
	if !strings.Contains(b.read(fact), "ninja") {
		t.Fatalf("accept did not replace %s: %q", fact, b.read(fact))
	}
	for _, stray := range []string{"project-build.md", "_inbox/" + fact} {
		if _, err := os.Stat(filepath.Join(b.mem, stray)); err == nil {
			t.Fatalf("%s is left after accept:\n%s", stray, b.git(b.notes, "status", "--short"))
		}
	}
	b.noMarkers()
	b.fsck()
}
