package secrets

import (
	"strings"
	"testing"
)

// memoryd's own lines are no secrets; a secret typed by hand among them,
// in the frontmatter or the body, still is.
func TestOwnLinesAndFrontmatterSecrets(t *testing.T) {
	const front = "---\nname: deploy\ndescription: How staging deploys\nmetadata:\n  type: project\n  source:\n" +
		"    - agent: codex\n      session: 2026/11/27/rollout-2026-11-27T23-40-00-0199b0c2-1111-7222-8333-444455556666.jsonl\n" +
		"      messages: 2026-11-27T23:43:23Z..2026-11-27T23:45:01Z\n      at: \"2026-11-27T23:45:09Z\"\n" +
		"    - agent: opencode\n      session: ses_4f2a9c1e8bffZ2kQ7mNpXw3RtY\n      messages: msg_4f2a9c1e8bffAbCdEfGhIjKlMn..msg_4f2a9c1e8c00ZyXwVuTsRqPo\n" +
		"  cites:\n    - internal/secrets/secrets.go@3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39#secretSpans\n    - keys/api_key.go@9fceb02d0ae598e95dc970b74767f19372d61af8\n"
	clean := front + "---\nDeploys go through CI; see internal/secrets/secrets.go@3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39.\n"
	if f := ScreenFile([]byte(clean)); len(f) != 0 {
		t.Errorf("memoryd's own lines taken for a secret: %+v", f)
	}
	for _, c := range []struct{ text, secret string }{
		{strings.Replace(clean, "  type: project\n", "  type: project\n  password: Zq8!pLm2Wx7-staging\n", 1), "Zq8!pLm2Wx7-staging"},
		{strings.Replace(clean, "description: How staging deploys", "description: The router's Passwort ist Tr0ub4dor&3xyz", 1), "Tr0ub4dor&3xyz"},
		{clean + "db.example.com:5432:app:app_user:Xk9mR2qLw7\n", "Xk9mR2qLw7"},
	} {
		got, n := Redact(c.text)
		if n == 0 || strings.Contains(got, c.secret) {
			t.Errorf("the secret %q is left in:\n%s", c.secret, got)
		}
	}
}

// A key only the maintained rule set knows (a Linear API key) is found,
// and named by the gitleaks rule that found it.
func TestGitleaksRules(t *testing.T) {
	if n := len(gitleaksRules().Rules); n < 200 {
		t.Fatalf("%d gitleaks rules read; the default set has over 200", n)
	}
	for _, r := range gitleaksRules().Rules {
		if r.Regex != "" && r.regexp() == nil {
			t.Errorf("gitleaks rule %s does not compile in Go's syntax: its keys go unfound", r.ID)
		}
	}
	text := "Notes.\nThe tracker sync uses lin_api_Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8Ke2Lm4Rt6Uw9Xc for the bot.\n"
	f := FindSecrets(text)
	if len(f) != 1 || f[0].Kind != "gitleaks rule linear-api-key" || f[0].Line != 2 || !strings.HasPrefix(text[f[0].Start:], "lin_api_Qx7") {
		t.Fatalf("FindSecrets = %+v", f)
	}
}
