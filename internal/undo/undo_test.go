package undo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

func TestMain(m *testing.M) { gittest.Main(m) }

var ctx = context.Background()

// fixture is a notes repository whose memory folder went through a
// checkpoint and a compaction that deleted user-b.md.
func fixture(t *testing.T) (dir string, repo *gitstore.Repo) {
	t.Helper()
	dir, repo = newRepo(t)
	write(t, dir, "user-a.md", "a")
	write(t, dir, "user-b.md", "b")
	commitAll(t, dir, commitmsg.CheckpointSubject)
	os.Remove(filepath.Join(dir, "user-b.md"))
	commitAll(t, dir, commitmsg.CompactionPrefix+" (merged 0, deleted 1, rewrote 0, flagged 0)")
	return dir, repo
}

// newRepo is an empty memory folder in a new notes repository.
func newRepo(t *testing.T) (dir string, repo *gitstore.Repo) {
	t.Helper()
	root := t.TempDir()
	gittest.Run(t, root, "init", "-q")
	dir = filepath.Join(root, "memory")
	os.Mkdir(dir, 0o755)
	repo, err := gitstore.Open(dir, gitstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

// commitAll commits everything in the repository with msg, as a memoryd
// commit (or a person's) would have.
func commitAll(t *testing.T, dir, msg string) string {
	t.Helper()
	root := filepath.Dir(dir)
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-q", "-m", msg)
	return gittest.Run(t, root, "rev-parse", "HEAD")
}

func write(t *testing.T, dir, name, desc string) {
	t.Helper()
	m := index.NewMemory("user", strings.TrimPrefix(strings.TrimSuffix(name, ".md"), "user-"), "fact "+desc, "body of "+desc)
	if err := os.WriteFile(filepath.Join(dir, name), m.Format(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

func subjects(t *testing.T, dir string) []string {
	return strings.Split(gittest.Run(t, filepath.Dir(dir), "log", "--format=%s"), "\n")
}

func clean(t *testing.T, dir string) {
	t.Helper()
	if st := gittest.Run(t, filepath.Dir(dir), "status", "--porcelain"); st != "" {
		t.Fatalf("left uncommitted:\n%s", st)
	}
}

func TestRunRestoresCheckpointAndKeepsPendingInHistory(t *testing.T) {
	dir, _ := fixture(t)
	write(t, dir, "user-c.md", "c") // a hand edit not yet committed
	sd := t.TempDir()
	res, err := Run(ctx, Options{Folder: openFolder(t, dir, sd)})
	if err != nil {
		t.Fatal(err)
	}
	if !exists(dir, "user-b.md") {
		t.Fatal("the deleted fact is not back")
	}
	if exists(dir, "user-c.md") {
		t.Fatal("the later file should be undone too (it stays in history)")
	}
	if !res.Restored || res.Later != 1 || res.Commit == "" || !strings.Contains(res.What, "checkpoint before compaction") {
		t.Fatalf("result %+v", res)
	}
	log := strings.Join(subjects(t, dir), "\n")
	if !strings.HasPrefix(log, "memory: ") || !strings.Contains(log, "memory: undo compaction "+res.Undone.Hash[:12]+" (merged 0, deleted 1, rewrote 0, flagged 0)") ||
		!strings.Contains(log, "memory: update user-c.md") {
		t.Fatalf("history:\n%s", log)
	}
	// The folder was settled: MEMORY.md lists the restored facts and is committed.
	if idx := read(dir, index.IndexFile); !strings.Contains(idx, "user-b.md") {
		t.Fatalf("MEMORY.md:\n%s", idx)
	}
	clean(t, dir)
	// The same compaction again: undone already.
	if _, err := Run(ctx, Options{Folder: openFolder(t, dir, sd), Commit: res.Undone.Hash[:8]}); !errors.Is(err, ErrNothingToUndo) ||
		!strings.Contains(err.Error(), "undone already by "+res.Commit[:12]) {
		t.Fatalf("undo of an undone compaction: %v", err)
	}
	// Undoing the undo is a redo: the compaction's result and the later
	// file come back.
	redo, err := Run(ctx, Options{Folder: openFolder(t, dir, sd), Commit: res.Commit[:8]})
	if err != nil || redo.Restored || exists(dir, "user-b.md") || !exists(dir, "user-c.md") {
		t.Fatalf("redo: %+v %v", redo, err)
	}
	clean(t, dir)
}

func TestRunRefusesWhileLocked(t *testing.T) {
	dir, _ := fixture(t)
	sd := t.TempDir()
	l, err := state.TryLock(sd, state.WriteLock, "pid 1, test")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	_, err = Run(ctx, Options{Folder: openFolder(t, dir, sd)})
	if !errors.Is(err, state.ErrLocked) || !strings.Contains(err.Error(), "pid 1, test") {
		t.Fatalf("err = %v", err)
	}
	if exists(dir, "user-b.md") {
		t.Fatal("restored while another writer held the lock")
	}
}

// extractionFixture: user-a.md and user-b.md by hand, then an extraction
// that created user-x.md and updated user-a.md, then a daemon commit of a
// hand edit to user-b.md.
func extractionFixture(t *testing.T) (dir string, repo *gitstore.Repo, extraction string) {
	dir, repo = newRepo(t)
	write(t, dir, "user-a.md", "a")
	write(t, dir, "user-b.md", "b")
	commitAll(t, dir, "memory: update user-a.md, user-b.md")
	write(t, dir, "user-x.md", "x")
	write(t, dir, "user-a.md", "a, updated")
	extraction = commitAll(t, dir, "memory: extract from opencode session ses_1\n\ncreated user-x.md\nupdated user-a.md\n\nTokens: 1234")
	write(t, dir, "user-b.md", "b, edited by hand")
	commitAll(t, dir, "memory: update user-b.md")
	return dir, repo, extraction
}

// TestUndoExtraction: the extraction's files go back to before it; the
// later commit to another file stays.
func TestUndoExtraction(t *testing.T) {
	dir, _, extraction := extractionFixture(t)
	oldA := gittest.Run(t, filepath.Dir(dir), "show", extraction+"^:memory/user-a.md")
	res, err := Run(ctx, Options{Folder: openFolder(t, dir, t.TempDir()), Commit: extraction[:7]})
	if err != nil {
		t.Fatal(err)
	}
	if exists(dir, "user-x.md") || strings.TrimSpace(read(dir, "user-a.md")) != oldA || !strings.Contains(read(dir, "user-b.md"), "edited by hand") {
		t.Errorf("files after undo: x %v, a %q, b %q", exists(dir, "user-x.md"), read(dir, "user-a.md"), read(dir, "user-b.md"))
	}
	if res.Restored || res.Kind != KindExtraction || len(res.Changes) != 2 || res.Commit == "" {
		t.Errorf("result %+v", res)
	}
	msg := gittest.Run(t, filepath.Dir(dir), "log", "-1", "--format=%B")
	want := "memory: undo " + extraction[:12] + " (extract from opencode session ses_1)\n\nUndoes " + extraction + ".\nrestored user-a.md\nremoved user-x.md" +
		"\n\nMemoryd-Kind: undo\nMemoryd-Writer: person"
	if msg != want {
		t.Errorf("message:\n%s\nwant:\n%s", msg, want)
	}
	if files := gittest.Run(t, filepath.Dir(dir), "show", "--name-only", "--format=", "HEAD"); files != "memory/.gitattributes\nmemory/MEMORY.md\nmemory/PROTOCOL.md\nmemory/user-a.md\nmemory/user-x.md" {
		t.Errorf("undo commit files:\n%s", files)
	}
	if idx := read(dir, index.IndexFile); strings.Contains(idx, "user-x.md") || !strings.Contains(idx, "user-b.md") {
		t.Errorf("MEMORY.md:\n%s", idx)
	}
	clean(t, dir)
}

// TestUndoRefusesLaterChangeToSameFile: a later commit or an uncommitted
// edit to a file the commit changed stops undo, naming both; --force undoes
// anyway.
func TestUndoRefusesLaterChangeToSameFile(t *testing.T) {
	dir, _, extraction := extractionFixture(t)
	write(t, dir, "user-x.md", "x, edited")
	edit := commitAll(t, dir, "memory: edit user-x.md (cli)")
	write(t, dir, "user-a.md", "a, typed just now")
	head := gittest.Run(t, filepath.Dir(dir), "rev-parse", "HEAD")
	sd := t.TempDir()
	_, err := Run(ctx, Options{Folder: openFolder(t, dir, sd), Commit: extraction[:7]})
	var ce *ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{
		"not undoing " + extraction[:12] + " (memory: extract from opencode session ses_1): later changes touched the same files:",
		"\n  user-a.md: changed since, not committed yet",
		"\n  user-x.md: changed since by " + edit[:12] + " memory: edit user-x.md (cli)",
		"memoryd undo --force " + extraction[:12],
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if got := gittest.Run(t, filepath.Dir(dir), "rev-parse", "HEAD"); got != head || !strings.Contains(read(dir, "user-x.md"), "x, edited") {
		t.Fatal("a refused undo wrote something")
	}

	res, err := Run(ctx, Options{Folder: openFolder(t, dir, sd), Commit: extraction[:7], Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if exists(dir, "user-x.md") || strings.Contains(read(dir, "user-a.md"), "updated") || len(res.Replaced) != 2 {
		t.Errorf("after --force: %+v", res)
	}
	// The uncommitted edit was committed first: it is in history.
	if s := subjects(t, dir); !strings.HasPrefix(s[0], "memory: undo ") || s[1] != "memory: update user-a.md" {
		t.Errorf("history %q", s[:3])
	}
	clean(t, dir)
}

// TestUndoWalksBackAndRedo: without a commit, undo takes back the newest
// memoryd commit not undone yet, one after the other; undoing an undo is
// a redo.
func TestUndoWalksBackAndRedo(t *testing.T) {
	dir, _ := newRepo(t)
	write(t, dir, "user-keep.md", "keep")
	commitAll(t, dir, "notes by hand") // not memoryd's
	write(t, dir, "user-a.md", "a")
	commitAll(t, dir, "memory: add user-a.md (cli)")
	os.Remove(filepath.Join(dir, "user-keep.md"))
	commitAll(t, dir, "memory: forget user-keep.md (mcp)")
	sd := t.TempDir()
	run := func(commit string) (Result, error) {
		return Run(ctx, Options{Folder: openFolder(t, dir, sd), Commit: commit})
	}
	first, err := run("")
	if err != nil || first.Kind != KindForget || !exists(dir, "user-keep.md") || !exists(dir, "user-a.md") {
		t.Fatalf("first undo: %+v %v", first, err)
	}
	if first.Changes[0] != (Change{File: "user-keep.md", How: "brought back"}) {
		t.Errorf("changes %+v", first.Changes)
	}
	second, err := run("")
	if err != nil || second.Kind != KindAdd || exists(dir, "user-a.md") || !exists(dir, "user-keep.md") {
		t.Fatalf("second undo: %+v %v", second, err)
	}
	if _, err := run(""); !errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "undone already") {
		t.Fatalf("third undo: %v", err)
	}
	// Redo the add: the file is back, and a plain undo takes it back again.
	if res, err := run(second.Commit[:10]); err != nil || res.Kind != KindUndo || !exists(dir, "user-a.md") {
		t.Fatalf("redo: %+v %v", res, err)
	}
	if res, err := run(""); err != nil || res.Kind != KindAdd || exists(dir, "user-a.md") {
		t.Fatalf("undo after the redo: %+v %v", res, err)
	}
	clean(t, dir)
}

func TestUndoRefusals(t *testing.T) {
	dir, _ := newRepo(t)
	if _, err := Run(ctx, Options{Folder: openFolder(t, dir, t.TempDir())}); !errors.Is(err, ErrNoMemorydCommit) {
		t.Errorf("empty history: %v", err)
	}
	write(t, dir, "user-a.md", "a")
	mine := commitAll(t, dir, "my notes")
	if _, err := Run(ctx, Options{Folder: openFolder(t, dir, t.TempDir())}); !errors.Is(err, ErrNoMemorydCommit) ||
		!strings.Contains(err.Error(), "no compaction to undo") {
		t.Errorf("no memoryd commit: %v", err)
	}
	if _, err := Run(ctx, Options{Folder: openFolder(t, dir, t.TempDir()), Commit: mine[:6]}); err == nil ||
		!strings.Contains(err.Error(), "was not made by memoryd: it is neither a compaction nor a checkpoint") {
		t.Errorf("a person's commit: %v", err)
	}
	os.WriteFile(filepath.Join(dir, index.IndexFile), []byte("# Memory\n"), 0o644)
	idx := commitAll(t, dir, "memory: update MEMORY.md")
	if _, err := Run(ctx, Options{Folder: openFolder(t, dir, t.TempDir()), Commit: idx[:6]}); !errors.Is(err, ErrNothingToUndo) ||
		!strings.Contains(err.Error(), "changed only files memoryd rebuilds (MEMORY.md)") {
		t.Errorf("an index-only commit: %v", err)
	}
	if _, err := Run(ctx, Options{Folder: openFolder(t, dir, t.TempDir()), Commit: "abc"}); err == nil || !strings.Contains(err.Error(), "is not among") {
		t.Errorf("a prefix too short: %v", err)
	}
}

// TestUndoDanglingCheckpoint: a pass that died after its checkpoint left
// its half-applied changes, committed by the daemon as a plain update;
// undo goes back to the checkpoint.
func TestUndoDanglingCheckpoint(t *testing.T) {
	dir, _ := newRepo(t)
	write(t, dir, "user-a.md", "a")
	write(t, dir, "user-b.md", "b")
	commitAll(t, dir, commitmsg.CheckpointSubject)
	os.Remove(filepath.Join(dir, "user-b.md"))
	write(t, dir, "user-a.md", "a merged")
	res, err := Run(ctx, Options{Folder: openFolder(t, dir, t.TempDir())})
	if err != nil || !res.Restored || res.Kind != KindCheckpoint || res.Later != 1 || !exists(dir, "user-b.md") || strings.Contains(read(dir, "user-a.md"), "merged") {
		t.Fatalf("pending half-applied pass: %+v %v", res, err)
	}

	dir, _ = newRepo(t)
	write(t, dir, "user-a.md", "a")
	write(t, dir, "user-b.md", "b")
	cp := commitAll(t, dir, commitmsg.CheckpointSubject)
	os.Remove(filepath.Join(dir, "user-b.md"))
	commitAll(t, dir, "memory: update user-b.md")
	res, err = Run(ctx, Options{Folder: openFolder(t, dir, t.TempDir())})
	if err != nil || !res.Restored || res.Undone.Hash != cp || res.What != "checkpoint "+cp[:12] || !exists(dir, "user-b.md") {
		t.Fatalf("committed half-applied pass: %+v %v", res, err)
	}
	if s := subjects(t, dir); !strings.Contains(strings.Join(s[:2], "\n")+"\n", "memory: undo to checkpoint "+cp[:12]+"\n") {
		t.Errorf("subjects %q", s)
	}
}

// openFolder opens dir, with its repository, for a test.
func openFolder(t *testing.T, dir, stateDir string) *folder.Folder {
	t.Helper()
	f, err := folder.Open(folder.Options{Dir: dir, StateDir: stateDir})
	if err != nil || f.Repo() == nil {
		t.Fatal(err)
	}
	return f
}
