package folder

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// tree is every file under root (the repository and the state folder
// included) with its bytes.
func tree(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			out[p] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// apply writes a fixed change through tx: a new fact, an edit, a removal.
func apply(t *testing.T, tx *Tx) {
	t.Helper()
	a := tx.Snapshot().Memories[0]
	if err := tx.Write("user-new.md", fact("new", "New."), ""); err != nil {
		t.Fatal(err)
	}
	if err := tx.Write("user-a.md", fact("a", "A, edited."), a.Hash); err != nil {
		t.Fatal(err)
	}
	if err := tx.Remove("user-new.md", ""); err == nil {
		t.Fatal("a stale base was accepted")
	}
	if _, err := tx.Commit(ctx, commitmsg.Message{Subject: "memory: dry", Kind: commitmsg.KindAdd, Writer: commitmsg.Person}); err != nil {
		t.Fatal(err)
	}
}

// TestDryRunRecordsAndTouchesNothing: a dry run, while another writer
// holds the write lock, records the writes and the commit message and
// leaves every file of the repository and the state folder, HEAD and git
// status as they were; the real transaction then writes what it recorded.
func TestDryRunRecordsAndTouchesNothing(t *testing.T) {
	f, root := newFolder(t)
	head, status := gittest.Run(t, root, "rev-parse", "HEAD"), gittest.Run(t, root, "status", "--porcelain")
	before := tree(t, root, f.StateDir())
	l, err := state.TryLock(f.StateDir(), state.WriteLock, state.Owner("someone"))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := f.BeginDryRun(ctx, "test")
	if err != nil {
		t.Fatalf("a dry run needs no lock: %v", err)
	}
	apply(t, tx)
	if b, err := tx.Read("user-new.md"); err != nil || string(b) != string(fact("new", "New.")) {
		t.Errorf("the dry run reads %q (%v), not what it recorded", b, err)
	}
	tx.Close()
	l.Unlock()
	plan := tx.Plan()
	if !tx.DryRun() || plan.Message == "" || len(plan.Files) != 2 || plan.Files[0].File != "user-new.md" || plan.Files[1].File != "user-a.md" {
		t.Fatalf("plan: %+v", plan)
	}
	lockless := tree(t, root, f.StateDir())
	for _, name := range []string{state.WriteLock, state.WriteLock + ".owner"} { // the lock's files, which the other writer made
		delete(before, filepath.Join(f.StateDir(), name))
		delete(lockless, filepath.Join(f.StateDir(), name))
	}
	if !reflect.DeepEqual(lockless, before) || gittest.Run(t, root, "rev-parse", "HEAD") != head || gittest.Run(t, root, "status", "--porcelain") != status {
		t.Fatal("the dry run changed the folder, the state folder or git")
	}
	real, err := f.Begin(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	apply(t, real)
	for _, p := range plan.Files {
		if b, err := index.ReadPlain(f.Dir(), p.File); err != nil || string(b) != string(p.Data) {
			t.Errorf("%s: the real run wrote %q (%v), the dry run planned %q", p.File, b, err, p.Data)
		}
	}
	if got := gittest.Run(t, root, "log", "-1", "--format=%B"); strings.TrimSpace(got) != strings.TrimSpace(plan.Message) {
		t.Errorf("committed %q, the dry run planned %q", got, plan.Message)
	}
}
