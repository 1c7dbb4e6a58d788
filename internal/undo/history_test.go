package undo

import (
	"errors"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/gitstore"
)

func TestKindOf(t *testing.T) {
	for subject, want := range map[string]string{
		"memory: compaction (merged 1, deleted 0, rewrote 0, flagged 0)": KindCompaction,
		commitmsg.CheckpointSubject:                                      KindCheckpoint,
		"memory: extract from opencode session ses_1":                    KindExtraction,
		"memory: add user-x.md (cli)":                                    KindAdd,
		"memory: replace user-x.md (mcp)":                                KindReplace,
		"memory: edit feedback-y.md (cli)":                               KindEdit,
		"memory: forget user-x.md (mcp)":                                 KindForget,
		"memory: update user-a.md, MEMORY.md":                            KindUpdate,
		"memory: undo 0123456789ab (add user-x.md (cli))":                KindUndo,
		"memory: review accept user-x.md":                                KindMemoryd,
		"memory files":                                                   KindOther,
		"Merge branch 'main'":                                            KindOther,
	} {
		if got := KindOf(subject); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", subject, got, want)
		}
	}
}

func hist(cs ...string) []gitstore.Commit {
	var out []gitstore.Commit
	for _, c := range cs {
		hash, rest, _ := strings.Cut(c, " ")
		subject, files, _ := strings.Cut(rest, " | ")
		out = append(out, gitstore.Commit{Hash: strings.Repeat(hash, 10), Subject: subject, Files: strings.Split(files, ",")})
	}
	return out
}

func TestClassifyAndTarget(t *testing.T) {
	es := Classify("", hist(
		"ffff memory: update MEMORY.md | MEMORY.md",
		"eeee memory: undo dddddddddddd (add user-d.md (cli)) | user-d.md,MEMORY.md",
		"dddd memory: add user-d.md (cli) | user-d.md,MEMORY.md",
		"cccc memory: undo compaction bbbbbbbbbbbb (merged 0, deleted 1, rewrote 0, flagged 0) | user-b.md,MEMORY.md",
		"aaaa memory: extract from claude session x | user-x.md,MEMORY.md",
		"bbbb memory: compaction (merged 0, deleted 1, rewrote 0, flagged 0) | user-b.md,MEMORY.md",
		"9999 memory: checkpoint before compaction | user-c.md",
		"8888 memory: extract from opencode session y | user-y.md",
		"7777 my own commit | user-z.md",
	))
	undone := map[string]string{"dddd": "eeee", "aaaa": "cccc", "bbbb": "cccc"}
	for _, e := range es {
		if want := undone[e.Hash[:4]]; !strings.HasPrefix(e.UndoneBy, want) || (want == "") != (e.UndoneBy == "") {
			t.Errorf("%s undone by %q, want %q", e.Subject, e.UndoneBy, want)
		}
	}
	undoable := "eeee cccc 8888" // not MEMORY.md alone, not undone, not a checkpoint followed by its compaction, not a person's
	for _, e := range es {
		if e.Undoable != strings.Contains(undoable, e.Hash[:4]) {
			t.Errorf("%s: undoable %v", e.Subject, e.Undoable)
		}
	}
	if i, err := Target(es, "", false); err != nil || es[i].Hash[:4] != "8888" {
		t.Errorf("default target: %d %v", i, err)
	}
	for commit, want := range map[string]string{
		"CCCC": "", "eeeeee": "", "9999": "", // an undo (redo), a checkpoint: by hash
		"dddd": "undone already by eeeeeeeeeeee", "ffff": "changed only files memoryd rebuilds",
		"7777": "was not made by memoryd", "123": "is not among", "1234": "is not among",
	} {
		i, err := Target(es, commit, false)
		if want == "" {
			if err != nil || !strings.HasPrefix(es[i].Hash, strings.ToLower(commit)) {
				t.Errorf("Target(%q) = %d, %v", commit, i, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Target(%q): %v, want %q", commit, err, want)
		}
	}
	if _, err := Target(es[:6], "", false); !errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "undone already") {
		t.Errorf("everything undone: %v", err)
	}
	if _, err := Target(Classify("", hist("7777 my own commit | a.md")), "", true); !errors.Is(err, ErrNoMemorydCommit) {
		t.Errorf("no memoryd commit: %v", err)
	}
}

// A checkpoint whose compaction commit never came is the target when the
// pass's changes are pending, or when the daemon's commit right after it
// recorded them.
func TestTargetDanglingCheckpoint(t *testing.T) {
	es := Classify("", hist("9999 memory: checkpoint before compaction | user-a.md", "8888 memory: add user-a.md (cli) | user-a.md"))
	if i, _ := Target(es, "", true); i != 0 {
		t.Errorf("pending: target %d", i)
	}
	if i, _ := Target(es, "", false); i != 1 {
		t.Errorf("nothing pending: target %d, want the add", i)
	}
	es = Classify("", hist("aaaa memory: update user-a.md | user-a.md", "9999 memory: checkpoint before compaction | user-a.md"))
	if i, _ := Target(es, "", false); i != 1 {
		t.Errorf("the daemon committed the pass's changes: target %d, want the checkpoint", i)
	}
}
