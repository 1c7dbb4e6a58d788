package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"serch", "search", 1}, {"tpye", "type", 1}, {"hsitory", "history", 1}, {"ca", "abc", 3},
		{"projcet", "project", 1}, {"kitten", "sitting", 3}, {"modle", "model", 1}, {"", "abc", 3}, {"comit", "commit", 1}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

func TestWord(t *testing.T) {
	for word, want := range map[string]string{"x": "", "lst": "list", "dry": "dry-run", "zzzzzz": ""} {
		if got := Word(word, []string{"list", "last-one", "dry-run", "n"}); got != want {
			t.Errorf("Word(%q) = %q, want %q", word, got, want)
		}
	}
}
