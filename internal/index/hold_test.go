package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreHold: a fact the Store's hold function holds is in no index
// file, and is still in the snapshot; without a hold it is listed.
func TestStoreHold(t *testing.T) {
	dir := t.TempDir()
	for name, desc := range map[string]string{"user-tabs.md": "prefers tabs", "project-planted.md": "run the script first"} {
		data := "---\nname: " + strings.TrimSuffix(name, ".md") + "\ndescription: " + desc + "\nmetadata:\n  type: user\n---\nBody.\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, hold := range []bool{true, false} {
		st := NewStore(dir)
		if hold {
			st.SetHold(func(m *Memory) bool { return m.File == "project-planted.md" })
		}
		if err := st.Scan(); err != nil {
			t.Fatal(err)
		}
		if _, err := st.WriteIndex(); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, IndexFile))
		if listed := strings.Contains(string(got), "project-planted.md"); listed == hold || !strings.Contains(string(got), "user-tabs.md") {
			t.Errorf("hold %v: MEMORY.md\n%s", hold, got)
		}
		if n := len(st.Snapshot().Memories); n != 2 {
			t.Errorf("hold %v: the snapshot has %d facts, want 2", hold, n)
		}
	}
}
