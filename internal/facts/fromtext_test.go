package facts

import (
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

func TestFromText(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, tc := range []struct{ text, name, desc string }{
		{"I use fish as my shell", "i-use-fish-as-my-shell", "I use fish as my shell"},
		{"Über-Tool v2: déjà vu!", "ber-tool-v2-d-j-vu", "Über-Tool v2: déjà vu!"},
		{"日本語だけ", "note", "日本語だけ"},
		{"\n\n  first   line\nsecond line", "first-line-second-line", "first line"},
		{"antidisestablishmentarianism-and-floccinaucinihilipilification-are-long words", "antidisestablishmentarianism-and-floccinaucinihilipilification", "antidisestablishmentarianism-and-floccinaucinihilipilification-are-long words"},
		{long, "word-word-word-word-word-word-word-word", strings.Repeat("word ", 58) + "word…"},
	} {
		f := FromText(tc.text)
		if f.Type != DefaultType || f.Name != tc.name || f.Description != tc.desc || !f.Free || f.Body != tc.text {
			t.Errorf("FromText(%q) = %+v, want name %q, description %q", tc.text, f, tc.name, tc.desc)
		}
		if !index.ValidName(f.Name) || len(f.Description) > MaxDescription {
			t.Errorf("FromText(%q): name %q or description of %d bytes not valid", tc.text, f.Name, len(f.Description))
		}
	}
}
