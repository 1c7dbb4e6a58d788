package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
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

// A long name from code is not a random token, however many capitals and
// digits it has; a made key of the same length still is.
func TestLongIdentifiersAreNotSecrets(t *testing.T) {
	for _, name := range []string{
		"Retries use backoffWithJitterAndMaxElapsedTime2Seconds in the client.",
		"The flaky one is TestCommitPathsOutlivesCancelAndSkipsUnchanged2.",
		"Call getUserProfileByIdV2FromCacheOrDatabase, never the raw query.",
		"The bean is AbstractSingletonProxyFactoryBean2Impl.",
		"Uploads fail in XMLHttpRequestUploadProgressEventHandler2 on Safari.",
		"Logs go to the bucket prod-Assets-Eu1-LogsArchiveBucketXyz.",
		"The hook is useInfiniteQueryWithSuspenseBoundaryV5Hook.",
		"Reports land in MyFunction-2024-01-15/v3/HandlerForUploadsQueue nightly.",
	} {
		if f := FindSecrets(name); len(f) != 0 {
			t.Errorf("FindSecrets(%q) = %+v", name, f)
		}
	}
	for _, key := range []string{
		"Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8Ke2Lm4Rt6",                      // base62, 36
		"Tq8/Lm3+Zx7/Rv2Kp9/Wn4Ys6Bd1Hc5Jf0Ge8Ua3I",                 // AWS secret key shape
		"kH3pQ9zR7vN2mX8wL4tB6yC1dF5gJ0sA",                          // base62, 32
		"Zr8Qm3Lx9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2Xc5Zb7Nm3Qp2WeRtYuIoPaSd", // base62, 56
	} {
		if f := FindSecrets("the deploy key " + key + " is used by CI"); len(f) != 1 || f[0].Kind != "random token" {
			t.Errorf("FindSecrets misses %q: %+v", key, f)
		}
	}
	// Random tokens of the lengths keys have are not taken for names.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		b := make([]byte, 32+i%33)
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		if k := kinds(string(b)); k.upper && k.lower && k.digit && entropy(string(b)) >= 4.2 && identifier(string(b)) {
			t.Errorf("random token %s taken for a name", b)
		}
	}
}

// A password hint that says where the password is kept is not a password —
// memoryd itself advises writing one.
func TestPasswordHintIsNotASecret(t *testing.T) {
	for _, hint := range []string{
		"password: see the 1Password item Prod DB",
		"- Prod DB password: see the 1Password item \"Prod DB\".",
		"password: ask Ana on Slack",
		"password: stored in the team vault",
		"password: op://Prod/db/password",
		"password: Bitwarden",
	} {
		if f := FindSecrets(hint); len(f) != 0 {
			t.Errorf("FindSecrets(%q) = %+v", hint, f)
		}
	}
	for _, pw := range []string{
		"password: see",                  // one word: it may be the password
		"password: hunter2 in the vault", // the value is no pointer
		"password=see the docs",          // an assignment takes the value as it is
		"password: \"see the docs\"",     // so does a quoted value
		"wifi password: purple monkey dishwasher lamp",
	} {
		if f := FindSecrets(pw); len(f) != 1 || f[0].Kind != "password" {
			t.Errorf("FindSecrets(%q) = %+v, want a password", pw, f)
		}
	}
}

func utf16Bytes(s string, bigEndian, bom bool) []byte {
	var b []byte
	if bom {
		if bigEndian {
			b = append(b, 0xfe, 0xff)
		} else {
			b = append(b, 0xff, 0xfe)
		}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

// ScreenFile finds a secret in whatever encoding a file has, and leaves a
// line marked with AllowMarker alone.
func TestScreenFile(t *testing.T) {
	const token = "ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue"
	text := "---\nname: deploy\n---\nDéploiement par la CI.\nToken: " + token + "\n"
	for name, data := range map[string][]byte{
		"UTF-8":                   []byte(text),
		"UTF-8 with BOM":          append([]byte{0xef, 0xbb, 0xbf}, text...),
		"UTF-16LE with BOM":       utf16Bytes(text, false, true),
		"UTF-16BE with BOM":       utf16Bytes(text, true, true),
		"UTF-16LE without BOM":    utf16Bytes(text, false, false),
		"UTF-16BE without BOM":    utf16Bytes(text, true, false),
		"UTF-32LE (NULs dropped)": []byte(strings.Join(strings.Split(text, ""), "\x00\x00\x00") + "\x00\x00\x00"),
	} {
		f := ScreenFile(data)
		if len(f) != 1 || f[0].Kind != "GitHub token" || f[0].Line != 5 {
			t.Errorf("%s: ScreenFile = %+v", name, f)
		}
	}
	marked := "Example from the docs: " + token + " <!-- " + AllowMarker + " -->\npassword: Wq3yamlPw7\n"
	if f := ScreenFile([]byte(marked)); len(f) != 1 || f[0].Line != 2 {
		t.Errorf("marked line: ScreenFile = %+v, want the password on line 2 alone", f)
	}
	if !HasSecret(marked) || len(FindSecrets(marked)) != 2 {
		t.Error("the marker must not hide a secret from redaction or the gate")
	}
}
