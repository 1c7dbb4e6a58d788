package transcript

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// rememberPhrases ask the agent to keep something. A phrase made of letters must stand as whole
// words; the Chinese and Japanese ones match anywhere.
var rememberPhrases = []string{
	"remember", "memorize", "memorise", "don't forget", "dont forget", "do not forget",
	"never forget", "save this", "save that", "keep in mind", "make a note", "note to self",
	"for future reference",
	"记住", "记一下", "记下来", "请记得", "要记得", "别忘了", "别忘记", "不要忘记", "不要忘了", "覚えておいて",
}

// notAsking are words that, just before a phrase, turn it into a negation or a statement
// ("don't remember", "I remember", "do you remember …?").
var notAsking = []string{
	"don't", "dont", "do not", "doesn't", "does not", "didn't", "did not", "not", "no need to",
	"never", "can't", "cannot", "won't", "do you", "did you", "i", "we",
	"不用", "不需要", "不要", "别", "无需", "不必", "没", "没有",
}

// WantsRemember reports whether a user message asks the agent to remember something, in English,
// Chinese or Japanese: "remember …", "don't forget …", "save this", "keep in mind", "记住",
// "别忘了", …. Code (fenced blocks and `inline` spans) is ignored, and so are negated or
// narrative uses: "don't remember", "do not remember", "no need to remember", "I remember",
// "不用记住".
func WantsRemember(text string) bool {
	s := normalizeForKeywords(stripCode(text))
	for _, p := range rememberPhrases {
		for from := 0; ; {
			i := strings.Index(s[from:], p)
			if i < 0 {
				break
			}
			i += from
			from = i + len(p)
			if wordAt(s, i, i+len(p), p) && !negated(s[:i]) {
				return true
			}
		}
	}
	return false
}

// wordAt reports whether s[i:j] stands as whole words, for a phrase of letters; "remember(" is
// code, not a request.
func wordAt(s string, i, j int, phrase string) bool {
	first, _ := utf8.DecodeRuneInString(phrase)
	if first > unicode.MaxLatin1 {
		return true
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[j:])
	return !isWordRune(before) && !isWordRune(after) && after != '('
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
}

// negated reports whether the text just before a phrase ends in a word from notAsking.
func negated(before string) bool {
	before = strings.TrimRight(before, " ")
	for _, n := range notAsking {
		if !strings.HasSuffix(before, n) {
			continue
		}
		first, _ := utf8.DecodeRuneInString(n)
		if first > unicode.MaxLatin1 {
			return true
		}
		prev, _ := utf8.DecodeLastRuneInString(before[:len(before)-len(n)])
		if !isWordRune(prev) {
			return true
		}
	}
	return false
}

// normalizeForKeywords lower-cases, straightens apostrophes and collapses white space.
func normalizeForKeywords(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// stripCode removes fenced code blocks (``` or ~~~) and `inline code` spans. An unclosed fence
// hides everything after it, as Markdown renders it.
func stripCode(s string) string {
	var b strings.Builder
	fence := ""
	for line := range strings.Lines(s) {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			b.WriteByte('\n')
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			b.WriteByte('\n')
			continue
		}
		b.WriteString(stripInlineCode(line))
	}
	return b.String()
}

func stripInlineCode(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(line[i+1:], '`')
		if j < 0 {
			break
		}
		b.WriteString(line[:i])
		b.WriteByte(' ')
		line = line[i+1+j+1:]
	}
	b.WriteString(line)
	return b.String()
}
