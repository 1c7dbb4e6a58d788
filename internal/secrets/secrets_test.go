package secrets

import (
	"strings"
	"testing"
)

// The full table of forms (81, in three transcript formats) lives in the
// extractor's tests, which run it through a real extraction; these cases
// pin the package's own contract.

func TestRedactAndFind(t *testing.T) {
	const token = "ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue"
	text := "# Deploy\nuser: app\npassword: Wq3yamlPw7\nCI pushes with " + token + ".\n"
	got, n := Redact(text)
	if n != 2 || strings.Contains(got, "Wq3yamlPw7") || strings.Contains(got, token) || !strings.Contains(got, Redacted) {
		t.Fatalf("Redact = %q, %d", got, n)
	}
	f := FindSecrets(text)
	if len(f) != 2 || f[0].Line != 3 || f[1].Line != 4 {
		t.Fatalf("FindSecrets = %+v", f)
	}
	if !HasSecret(text) || !HasSecret("already "+Redacted) {
		t.Fatal("HasSecret misses")
	}
	for _, plain := range []string{
		"Commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the build.",
		"Session 123e4567-e89b-12d3-a456-426614174000 is the one.",
		"The password policy requires 12 characters.",
	} {
		if HasSecret(plain) {
			t.Errorf("HasSecret(%q)", plain)
		}
	}
}
