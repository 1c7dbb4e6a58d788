package transcript

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A tool input is cut to MaxToolInput bytes before the extractor's secret
// detector sees it, so a cut must never keep the start of a word: the start
// of a token is too short to be known for one.
func TestShortInputKeepsWholeWords(t *testing.T) {
	token := "ghp_R8kLm2Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8Ke2"
	awsSecret := "Tq8/Lm3+Zx7/Rv2Kp9/Wn4Ys6Bd1Hc5Jf0Ge8Ua3I"
	pad := func(n int) string { return strings.Repeat("ab ", n/3) + strings.Repeat("x", n%3) }
	cases := []struct{ name, in, want string }{
		{"short", "  ls   -la\n\t/tmp ", "ls -la /tmp"},
		{"exactly the limit", strings.Repeat("a", MaxToolInput), strings.Repeat("a", MaxToolInput)},
		{"token cut", pad(140) + " " + token + " && echo ok", strings.TrimSpace(pad(140)) + "…"},
		{"slashed key cut", pad(130) + " " + awsSecret, strings.TrimSpace(pad(130)) + "…"},
		{"cut at a space", strings.Repeat("abcd ", 40), strings.TrimSpace(strings.Repeat("abcd ", 31)) + "…"},
		{"long URL", "https://example.com/api/v1/items?token=" + strings.Repeat("Zq8wR2", 30), "https://example.com/api/v1/items…"},
		{"long connection string", "Server=db;User=app;" + strings.Repeat("Option=1;", 14) + "Password=" + strings.Repeat("Zq8wR2", 10),
			"Server=db;User=app;" + strings.Repeat("Option=1;", 14) + "…"},
		{"long path", "/" + strings.Repeat("abcdefghi/", 15) + strings.Repeat("z", 40), "/" + strings.Repeat("abcdefghi/", 15) + "…"},
		{"one long word", strings.Repeat("Zq8wR2", 40), "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := shortInput(c.in)
			if got != c.want {
				t.Errorf("shortInput(%q)\n = %q\nwant %q", c.in, got, c.want)
			}
			if len(got) > MaxToolInput {
				t.Errorf("%d bytes", len(got))
			}
		})
	}
}

// TestShortInputNeverSplitsAWord: whatever the input, every word of the
// result but a last one with "…" after it is a whole word of the input.
func TestShortInputNeverSplitsAWord(t *testing.T) {
	words := []string{"echo", "世界", "ghp_R8kLm2Qx7Vz4Tn9Wc3", "--token", "Tq8/Lm3+Zx7", "a", "ls", "Ünïcödé"}
	for n := range 400 {
		var b strings.Builder
		for i := 0; b.Len() < 150+n%60; i++ {
			b.WriteString(words[(n*7+i*(n%5+1))%len(words)])
			b.WriteString(strings.Repeat(" ", 1+i%2))
		}
		in := b.String()
		got := shortInput(in)
		if len(got) > MaxToolInput || !utf8.ValidString(got) {
			t.Fatalf("shortInput(%q) = %q", in, got)
		}
		whole := map[string]bool{}
		for _, w := range strings.Fields(in) {
			whole[w] = true
		}
		for _, w := range strings.Fields(strings.TrimSuffix(got, "…")) {
			if !whole[w] {
				t.Fatalf("shortInput(%q) = %q: %q is part of a word", in, got, w)
			}
		}
	}
}
