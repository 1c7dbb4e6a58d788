package facts

import (
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// DefaultType is the type of a fact given as text alone ("memoryd add
// TEXT"): user, the type of facts about the person — what one tells an
// agent in passing ("I use fish as my shell") is most often about oneself.
const DefaultType = "user"

// nameWords is how many of the text's words a derived name keeps: enough
// to recognize the fact in a file list, short enough to read.
const nameWords = 8

// FromText is the fact a sentence says when nothing else is given: text is
// the body, the type DefaultType, the name the kebab-cased first words of
// text (at most 64 characters, cut at a hyphen; "note" when text has no
// letters or digits a-z, 0-9) and the description its first line, cut at a
// word to fit MaxDescription. Save with Free set gives the name a numbered
// suffix when another fact holds it.
func FromText(text string) Fact {
	return Fact{Type: DefaultType, Name: NameOf(text), Description: descriptionOf(text), Body: text, Free: true}
}

// NameOf derives a fact name from text: its first words, lower-cased,
// joined by hyphens, letters and digits a-z, 0-9 only, at most 64
// characters; "note" when nothing is left.
func NameOf(text string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(words) == nameWords || len(strings.Join(append(words, w), "-")) > 64 {
			break
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		if len(text) > 0 {
			return "note"
		}
		return ""
	}
	return strings.Join(words, "-")
}

// descriptionOf is text's first non-empty line, spaces collapsed, cut at
// a word with "…" when longer than MaxDescription.
func descriptionOf(text string) string {
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if line = strings.Join(strings.Fields(l), " "); line != "" {
			break
		}
	}
	line = index.CleanText(line, false, 0)
	const max = MaxDescription - len("…")
	if len(line) <= MaxDescription {
		return line
	}
	cut := strings.LastIndexByte(line[:max], ' ')
	if cut <= 0 {
		cut = max
		for cut > 0 && line[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
	}
	return strings.TrimRight(line[:cut], " ,;:.") + "…"
}
