package index

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	cases := []struct {
		in        string
		multiline bool
		limit     int
		want      string
	}{
		{"plain text", false, 0, "plain text"},
		{"a\x00b\x1b[31mc\x7f", false, 0, "ab[31mc"},
		{"line one\r\nline two\ttab", true, 0, "line one\nline two\ttab"},
		{"line one\nline two\ttab", false, 0, "line one line two tab"},
		{"evil\u202egnp.exe \u2066x\u2069 \ufeffbom \u200fmark", false, 0, "evilgnp.exe x bom mark"},
		{"bad \xff\xfe utf8", false, 0, "bad  utf8"},
		{"\u0085next line C1", false, 0, "next line C1"},
		{"日本語のテキスト", false, 7, "日本"},
		{"abcdef", false, 3, "abc"},
	}
	for _, c := range cases {
		got := CleanText(c.in, c.multiline, c.limit)
		if got != c.want {
			t.Errorf("CleanText(%q, %v, %d) = %q, want %q", c.in, c.multiline, c.limit, got, c.want)
		}
		if !utf8.ValidString(got) || strings.ContainsRune(got, 0) {
			t.Errorf("CleanText(%q) left %q", c.in, got)
		}
	}
}

func FuzzCleanText(f *testing.F) {
	f.Add("a\x00b\u202e\r\n", true, 10)
	f.Fuzz(func(t *testing.T, s string, multiline bool, limit int) {
		got := CleanText(s, multiline, limit)
		if limit > 0 && len(got) > limit {
			t.Fatalf("%d bytes over the limit %d", len(got), limit)
		}
		for _, r := range got {
			if !keepRune(r, multiline) {
				t.Fatalf("kept %U in %q", r, got)
			}
		}
		if CleanText(got, multiline, limit) != got {
			t.Fatal("not idempotent")
		}
	})
}
