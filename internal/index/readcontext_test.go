package index

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadContext: the generated files are read as they are when they
// fit; without them (or with a project file the index names missing) the
// facts are scanned, less what hold holds; the two give the same text.
func TestReadContext(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []*Memory{
		pmem("user-email.md", "user", ""), pmem("project-freeze.md", "project", "billing"), pmem("feedback-secrets.md", "feedback", ""),
	} {
		m.Body = "x\n"
		if err := os.WriteFile(filepath.Join(dir, m.File), m.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hold := func(m *Memory) bool { return m.File == "feedback-secrets.md" }
	scanned, err := ReadContext(dir, "billing", Budget{}, false, hold)
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := Scan(dir)
	if want := Context(snap.Without(hold), "billing", Budget{}, false); string(scanned) != string(want) {
		t.Fatalf("scanned:\n%s\nwant:\n%s", scanned, want)
	}
	for rel, data := range BuildAll(snap.Without(hold), Budget{}) {
		os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	}
	os.Remove(filepath.Join(dir, "feedback-secrets.md")) // a scan would now differ from the files only if read
	read, err := ReadContext(dir, "billing", Budget{}, false, nil)
	if err != nil || string(read) != string(scanned) {
		t.Fatalf("from the generated files (%v):\n%s", err, read)
	}
	if only, _ := ReadContext(dir, "billing", Budget{}, true, nil); len(only) == 0 || string(only) == string(read) {
		t.Errorf("project only:\n%s", only)
	}
	if none, _ := ReadContext(dir, "no-such-project", Budget{}, true, hold); none != nil {
		t.Errorf("project only without facts: %q", none)
	}
}
