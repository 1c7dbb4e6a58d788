package secrets

import (
	"os"
	"strings"
	"testing"
)

// Secrets labelled in other languages and written in other forms: each is
// found, and redaction leaves nothing of it.
func TestLocalAndFormatSecrets(t *testing.T) {
	for _, c := range []struct{ text, secret string }{
		{"DB Passwort: Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"Datenbankpasswort: Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"Kennwort = Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"mot de passe : Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"Mot de passe: soleil", "soleil"},
		{"contraseña: Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"пароль: Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"Пароль: солнышко123", "солнышко123"},
		{"密码：Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"数据库密码：hunter22", "hunter22"},
		{"password：Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"senha: Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"db.example.com:5432:app:app_user:Xk9mR2qLw7", "Xk9mR2qLw7"},
		{"add `*:*:*:postgres:hunter22` to ~/.pgpass", "hunter22"},
		{"otpauth://totp/Acme:ana@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme", "JBSWY3DPEHPK3PXP"},
		{"otpauth://totp/Acme?issuer=Acme&secret=JBSWY3DP", "JBSWY3DP"},
		{"Cookie: session=8f3kd93kdmxq0s9dkeiw0", "8f3kd93kdmxq0s9dkeiw0"},
		{"Cookie: theme=dark; session=s%3Aabc123def456.xyz", "s%3Aabc123def456.xyz"},
		{"Set-Cookie: sid=Qm4tR7vX2zK9pL3w; HttpOnly", "Qm4tR7vX2zK9pL3w"},
		{"curl -b 'sessionid=Qm4tR7vX2zK9pL3w' https://app.example.com/api", "Qm4tR7vX2zK9pL3w"},
	} {
		got, n := Redact(c.text)
		if n == 0 || strings.Contains(got, c.secret) || !HasSecret(c.text) {
			t.Errorf("Redact(%q) = %q, %d: the secret is left", c.text, got, n)
		}
	}
}

// TestOrdinaryNotes measures the screen's false positives on a corpus of
// ordinary notes (testdata/ordinary-notes.md) that talk about passwords,
// cookies and colons in several languages without holding a secret. The
// screen holds a file out of a commit, so every false positive costs the
// user a commit: the rate must stay 0.
func TestOrdinaryNotes(t *testing.T) {
	data, err := os.ReadFile("testdata/ordinary-notes.md")
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Split(string(data), "\n%%\n")[1:]
	flagged := 0
	for _, note := range notes {
		note = strings.TrimSpace(note)
		if note == "" {
			continue
		}
		if f := ScreenFile([]byte(note)); len(f) != 0 {
			flagged++
			t.Errorf("false positive %s in %q", f[0].Kind, note)
		}
	}
	t.Logf("false positives: %d of %d notes (%.1f%%)", flagged, len(notes), 100*float64(flagged)/float64(len(notes)))
	if len(notes) < 50 {
		t.Fatalf("%d notes; the corpus holds at least 50", len(notes))
	}
}
