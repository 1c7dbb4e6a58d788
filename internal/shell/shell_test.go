package shell

import (
	"os/exec"
	"slices"
	"testing"
)

// TestQuoteRoundTrips: every word Quote writes is read back by Words and
// by a real shell as the same word.
func TestQuoteRoundTrips(t *testing.T) {
	words := []string{"plain", "/home/o'brien/bin/memoryd", "with space", "semi;colon", "~user", "$HOME", "a\"b", "star*", "", "tab\there", "x=y:z,1@%"}
	line := Join(words...)
	got, ok := Words(line)
	if !ok || !slices.Equal(got, words) {
		t.Fatalf("Words(%q) = %q, %v", line, got, ok)
	}
	out, err := exec.Command("sh", "-c", `for w in `+line+`; do printf '%s\0' "$w"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if back := splitNUL(string(out)); !slices.Equal(back, words) {
		t.Fatalf("sh read %q, want %q", back, words)
	}
}

func splitNUL(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// TestWordsRefusesOtherLines: a line Quote could not have written is not
// read as memoryd's.
func TestWordsRefusesOtherLines(t *testing.T) {
	for _, line := range []string{`memoryd "x"`, "memoryd $(id)", "memoryd a; rm -rf b", "memoryd 'unterminated", "~/bin/memoryd"} {
		if w, ok := Words(line); ok {
			t.Errorf("Words(%q) = %q, ok", line, w)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/ana/notes/memory": "/home/ana/notes/memory",
		"/home/ana/My Notes":     "'/home/ana/My Notes'",
		"/tmp/it's":              `'/tmp/it'\''s'`,
		"~/notes":                "'~/notes'",
		"":                       "''",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
