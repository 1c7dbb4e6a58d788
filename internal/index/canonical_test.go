package index

import "testing"

// canonicalCases are texts whose canonical forms are compared pairwise
// (equal and not, prefixes, case, punctuation, spaces, invalid UTF-8).
var canonicalCases = []string{
	"", " ", "a", "A", "a.", " a ", "ab", "a b", "a  b", "a\tb\n", "a-b", "e-mail", "email",
	"Use tabs, never spaces.", "use tabs never spaces", "use tabs never spaces!", "use tabs never",
	"ÉTÉ", "été", "İstanbul", "ß", "\xff", "\xffa", "a\xff", "日本語 テキスト", "日本語テキスト",
	"a\u200bb", "a\u00a0b", "ǅ", "ǆ", "Ω", "ω", "\r\n", "x\x00y",
}

func TestHasCanonicalIsCanonicalEquality(t *testing.T) {
	for _, a := range canonicalCases {
		for _, b := range canonicalCases {
			canon := Canonical(b)
			if got, want := HasCanonical(a, canon), Canonical(a) == canon; got != want {
				t.Errorf("HasCanonical(%q, Canonical(%q)=%q) = %v, want %v (Canonical(%q)=%q)", a, b, canon, got, want, a, Canonical(a))
			}
		}
	}
}

func FuzzHasCanonical(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add(c, c+" x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, canon := range []string{Canonical(b), Canonical(a), b} {
			if got, want := HasCanonical(a, canon), Canonical(a) == canon; got != want {
				t.Fatalf("HasCanonical(%q, %q) = %v, want %v", a, canon, got, want)
			}
		}
	})
}
