package gitsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/gittest"
)

// scrubbed makes b rewrite the remote's history without leak.md (pushed
// by a) and force-push it, while a has a fact of its own not pushed yet.
// The user of a fetches by hand first: the remote-tracking ref already
// names the rewritten tip when memoryd's round comes.
func scrubbed(t *testing.T) (remote string, a, b *machine, old string) {
	remote, a, b = setup(t)
	base := a.head()
	a.write("leak.md", fact("leak", "a leak", "password of staging"))
	a.commit("leak")
	a.round()
	old = a.head()
	b.round()
	gittest.Run(t, b.notes, "reset", "-q", "--hard", base)
	b.write("user-editor.md", fact("editor", "the editor", "vim"))
	b.commit("editor")
	gittest.Run(t, b.notes, "push", "-q", "--force", "origin", "main")
	a.write("user-local.md", fact("local", "only on a", "kept"))
	a.commit("local")
	gittest.Run(t, a.notes, "fetch", "-q", "origin")
	return remote, a, b, old
}

// onRemote reports whether any commit of the remote's holds the file.
func onRemote(t *testing.T, remote, rel string) bool {
	return gittest.Run(t, remote, "log", "--all", "--format=%H", "--", rel) != ""
}

func TestRewrittenRemotePausesWithNothingChanged(t *testing.T) {
	remote, a, _, old := scrubbed(t)
	tipBefore := gittest.Run(t, remote, "rev-parse", "main")
	headBefore := a.head()
	for range 3 {
		res, err := a.sync.Round(context.Background())
		if !errors.Is(err, ErrPaused) || !res.Rewritten {
			t.Fatalf("round after the rewrite: %+v, %v", res, err)
		}
		for _, want := range []string{"rewritten", old[:12], "leak.md", "memoryd sync --take-remote", "git pull --no-rebase origin main"} {
			if !strings.Contains(res.Paused, want) {
				t.Errorf("the pause does not say %q: %s", want, res.Paused)
			}
		}
	}
	if got := gittest.Run(t, remote, "rev-parse", "main"); got != tipBefore {
		t.Errorf("the remote moved: %s, was %s", got, tipBefore)
	}
	if onRemote(t, remote, "memory/leak.md") {
		t.Error("the scrubbed file is back on the remote")
	}
	if a.head() != headBefore || !strings.Contains(a.read("leak.md"), "staging") {
		t.Error("the round changed this machine's branch")
	}
}

func TestTakeRemoteKeepsLocalFactsForReview(t *testing.T) {
	remote, a, _, _ := scrubbed(t)
	if _, err := a.sync.Round(context.Background()); !errors.Is(err, ErrPaused) {
		t.Fatalf("round: %v", err)
	}
	res, err := a.sync.TakeRemote(context.Background())
	if err != nil {
		t.Fatalf("take remote: %v (%+v)", err, res)
	}
	if len(res.Review) != 1 || res.Review[0] != "_inbox/user-local.md" {
		t.Errorf("review = %v, want [_inbox/user-local.md]", res.Review)
	}
	if a.read("leak.md") != "" || !strings.Contains(a.read("user-editor.md"), "vim") {
		t.Error("the work tree is not the remote's")
	}
	if !strings.Contains(a.read("_inbox/user-local.md"), "kept") {
		t.Error("the local fact was not kept for review")
	}
	a.round()
	if onRemote(t, remote, "memory/leak.md") {
		t.Error("the scrubbed file is back on the remote")
	}
	if !onRemote(t, remote, "memory/_inbox/user-local.md") {
		t.Error("the local fact did not reach the remote as a review item")
	}
	a.noMarkers()
}

// A note of the user's committed here since the rewrite is not a fact
// that can wait in review: take-remote refuses, with nothing changed.
func TestTakeRemoteKeepsTheUsersOwnFiles(t *testing.T) {
	_, a, _, _ := scrubbed(t)
	if err := os.WriteFile(filepath.Join(a.notes, "todo.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.commit("todo")
	head := a.head()
	res, err := a.sync.TakeRemote(context.Background())
	if !errors.Is(err, ErrPaused) || !strings.Contains(res.Paused, "todo.txt") {
		t.Fatalf("take remote over the user's own file: %+v, %v", res, err)
	}
	if a.head() != head {
		t.Error("the branch moved")
	}
}
