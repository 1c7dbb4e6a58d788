package folder

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// TestGateWarmLeavesReadersNothingToCheck: after the daemon's gate went
// through a snapshot (Warm), a reader — another Folder on the same state
// folder, as `memoryd recall` is — decides every fact with the saved
// verdicts and adds none; a fact edited since is checked again by the
// reader (the verdict is of the exact text), and the secret and the
// planted instruction are still redacted and held.
func TestGateWarmLeavesReadersNothingToCheck(t *testing.T) {
	root := t.TempDir()
	dir, stateDir := filepath.Join(root, "memory"), filepath.Join(root, "state")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(stateDir, 0o700)
	for kind, text := range gateFacts {
		os.WriteFile(filepath.Join(dir, kind+".md"), []byte(text), 0o644)
	}
	for i := range 20 {
		os.WriteFile(filepath.Join(dir, "user-f"+string(rune('a'+i))+".md"), fact("f"+string(rune('a'+i)), "An ordinary fact."), 0o644)
	}
	open := func() *Folder {
		f, err := Open(Options{Dir: dir, StateDir: stateDir, WithoutRepo: true})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	verdictsFile := filepath.Join(stateDir, state.VerdictsFile)
	read := func() []byte { data, _ := os.ReadFile(verdictsFile); return data }
	// A reader decides every fact: the verdicts it added, if any, saved.
	reader := func() (changed bool) {
		before := read()
		f := open()
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if filepath.Ext(e.Name()) != ".md" || index.Reserved(e.Name()) {
				continue
			}
			d, _ := f.Gate().DecideFile(RoadRecall, dir, e.Name(), "")
			switch e.Name() {
			case "secret.md":
				if d.Verdict != Redact || bytes.Contains([]byte(d.Body), []byte(gateSecret)) {
					t.Errorf("secret.md: %s %q", d.Verdict, d.Body)
				}
			case "planted.md":
				if d.Verdict != Hold {
					t.Errorf("planted.md: %s", d.Verdict)
				}
			}
		}
		f.KeepVerdicts()
		return !bytes.Equal(before, read())
	}

	daemon := open()
	snap, err := daemon.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !reader() {
		t.Fatal("a reader before any Warm added no verdict: the test cannot tell")
	}
	os.Remove(verdictsFile)
	if err := daemon.Gate().Warm(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if reader() {
		t.Error("after Warm a reader still ran a detector and added its verdict")
	}
	os.WriteFile(filepath.Join(dir, "user-fa.md"), fact("fa", "An ordinary fact, edited."), 0o644)
	if !reader() {
		t.Error("a fact edited after Warm was not checked again by the reader")
	}
}
