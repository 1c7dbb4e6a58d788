package index

import (
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/verdicts"
)

// TestStoreUsesAndRecordsVerdicts: a scan runs no detector; a Store with a
// verdicts set, writing its index, records the index lines the secret detector found clean, skips the detector on a
// line the set holds as clean (shown here by a set that vouches for a
// line it should not: the detector did not run), and never records a
// line with a secret.
func TestStoreUsesAndRecordsVerdicts(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	const token = "ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue"
	write(t, dir, "user-clean.md", memFile("user", "clean", "Prefers tabs"))
	write(t, dir, "user-secret.md", memFile("user", "secret", "Deploy with "+token))

	set := verdicts.Open(state, "v")
	st := NewStore(dir)
	st.SetVerdicts(set)
	if err := st.Scan(); err != nil {
		t.Fatal(err)
	}
	if set.Clean(verdicts.KeyOf(verdicts.IndexLine, "", "Prefers tabs")) {
		t.Error("a scan rendered an index line: only writing an index should")
	}
	if _, err := st.WriteIndex(); err != nil {
		t.Fatal(err)
	}
	if !set.Clean(verdicts.KeyOf(verdicts.IndexLine, "", "Prefers tabs")) {
		t.Error("the clean line was not recorded")
	}
	if set.Clean(verdicts.KeyOf(verdicts.IndexLine, "", "Deploy with "+token)) {
		t.Error("a line with a token was recorded clean")
	}
	if line := string(entryBytes(st.get("user-secret.md").mem)); strings.Contains(line, token) {
		t.Errorf("the line gives the token: %s", line)
	}

	vouching := verdicts.Open(t.TempDir(), "v")
	vouching.Add(verdicts.KeyOf(verdicts.IndexLine, "", "Deploy with "+token))
	st2 := NewStore(dir)
	st2.SetVerdicts(vouching)
	if err := st2.Scan(); err != nil {
		t.Fatal(err)
	}
	if line := string(entryBytes(st2.get("user-secret.md").mem)); !strings.Contains(line, token) {
		t.Errorf("a line the set holds clean went through the detector anyway: %s", line)
	}
}
