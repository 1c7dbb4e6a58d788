package compactor

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestControlCharactersInAnswer: NUL, escape sequences and bidirectional
// overrides in every text field of a plan never reach a file, MEMORY.md or
// the commit message, and the pass commits.
func TestControlCharactersInAnswer(t *testing.T) {
	const dirty = "x\x00y\x1b[2J\u202ez\x07"
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply {
		return plan(
			map[string]any{"op": "merge", "files": []string{"feedback-tabs.md", "feedback-tabs-always.md"},
				"into": map[string]any{"type": "feedback", "name": "indent-with-tabs", "description": "Tabs " + dirty,
					"body": "Always use tabs for indentation " + dirty + ", never spaces.\nWhy: said so in review."}, "reason": "same " + dirty},
			map[string]any{"op": "rewrite", "file": "user-email.md", "description": "Mail " + dirty, "body": "Mail is ana@example.com " + dirty, "reason": dirty},
			map[string]any{"op": "flag", "files": []string{"user-editor-a.md", "user-editor-b.md"}, "note": "which " + dirty},
			map[string]any{"op": "delete", "file": "user-x\x00\x1b.md", "reason": "gone " + dirty},
		)
	})
	res, err := f.run(f.compactor(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Merged != 1 || res.Rewrote != 1 || res.Flagged != 1 || res.Commit == "" {
		t.Fatalf("result %+v", res)
	}
	for name, content := range f.files() {
		if strings.ContainsAny(content, "\x00\x1b\u202e\x07") {
			t.Errorf("%s holds a control character:\n%q", name, content)
		}
	}
	msg := git(t, f.root, "log", "-1", "--format=%B")
	if strings.ContainsAny(msg, "\x00\x1b\u202e\x07") || !strings.HasPrefix(msg, commitmsg.CompactionPrefix) {
		t.Errorf("commit message %q", msg)
	}
}

// failCommits makes every commit of the repository at root fail from now
// on, as a commit can (a broken signing setup, a full disk, a lock taken by
// the user at the wrong moment): commits must be signed by a gpg that
// always fails. It is the folder's search hook, which a transaction's
// Commit calls after the checkpoint and before its own commit.
func failCommits(root string) func(context.Context, index.Snapshot) error {
	return func(context.Context, index.Snapshot) error {
		for _, kv := range [][2]string{{"commit.gpgsign", "true"}, {"gpg.program", "false"}} {
			cmd := exec.Command("git", "config", kv[0], kv[1])
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("git config: %v\n%s", err, out)
			}
		}
		return nil
	}
}

// TestFailedCommitRollsBack: when the compaction commit cannot be made, the
// folder and git's index go back to the checkpoint; nothing is half-applied.
func TestFailedCommitRollsBack(t *testing.T) {
	f := newFixture(t, store(), func(llmtest.Recorded) llmtest.Reply { return plan(goodOps()...) })
	f.write("user-new.md", mem("user", "new", "Pending hand edit", "Typed by hand, not yet committed."))
	c := f.compactor(10*time.Second, func(o *Options) {
		o.Folder = openFolder(t, folder.Options{Dir: f.dir, StateDir: f.stateDir, Wait: 5 * time.Second, Search: failCommits(f.root)})
	})
	res, err := f.run(c)
	if !errors.Is(err, ErrRolledBack) || !strings.Contains(err.Error(), "gpg failed") {
		t.Fatalf("err = %v", err)
	}
	if res.Checkpoint == "" || res.Commit != "" || len(res.Applied) != 0 {
		t.Fatalf("result %+v", res)
	}
	// The folder is exactly the checkpoint: the hand edit is in it, no op applied.
	if got := git(t, f.root, "log", "-1", "--format=%s"); got != commitmsg.CheckpointSubject {
		t.Fatalf("HEAD is %q", got)
	}
	if st := git(t, f.root, "status", "--porcelain"); st != "" {
		t.Fatalf("after the rollback git status shows:\n%s", st)
	}
	for name, want := range store() {
		if got := f.read(name); got != want {
			t.Errorf("%s not put back:\n%s", name, got)
		}
	}
	if f.exists("feedback-indent-with-tabs.md") || f.exists("_CONFLICTS.md") {
		t.Error("files the pass created are still there")
	}
}
