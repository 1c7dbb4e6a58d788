package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// How text becomes terms, the same way for a fact and for a query.
//
// Text is cut into chunks at white space and at punctuation other than the
// joiners of identifiers and paths (. / - _ : @ #). A chunk is lower-cased,
// its diacritics are folded ("café" is "cafe"), and it is split into parts
// at the joiners and where case changes inside a word: "useEffect",
// "use-effect" and "use_effect" are the parts "use" and "effect",
// "src/api/users.go" is "src", "api", "users" and "go". Every part is a
// term; a chunk of several parts is also one term whole, its parts joined
// ("useeffect" for all three spellings), and a path also each tail after a
// slash ("apiusersgo", "usersgo"), so that an identifier matches whole and
// by parts. Stop words — English function words and the words questions are
// made of ("which", "do", "what", "how") — are no terms, as parts; a whole
// chunk keeps them ("how-to" is "howto").

// Limits on what a chunk gives.
const (
	maxParts     = 16  // parts of a chunk used; the rest are ignored
	maxWordBytes = 128 // bytes of a term
)

// isJoiner reports whether r joins the parts of an identifier or a path
// when it stands between two of them.
func isJoiner(r rune) bool {
	switch r {
	case '.', '/', '-', '_', ':', '@', '#', '\\':
		return true
	}
	return false
}

// isWordRune reports whether r can be part of a word: letters, digits,
// private-use characters and combining marks.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.In(r, unicode.Co, unicode.Mn)
}

// isApostrophe reports whether r is an apostrophe inside a word ("don't",
// "user's").
func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// term is one term of a text, with where its chunk is in the text.
type term struct {
	text       string
	whole      bool // a chunk of several parts, whole (or a path's tail)
	start, end int  // the chunk, in bytes
}

// terms calls emit for each term of s in order, until emit returns false.
func terms(s string, emit func(term) bool) {
	var c chunk
	for i := 0; i < len(s); {
		// Skip to the start of a chunk: a word rune.
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		start := i
		c.reset()
		next, end := c.read(s, i)
		c.flush(0)
		i = max(next, end)
		if !emitChunk(c.parts, c.seps, start, end, emit) {
			return
		}
	}
}

// chunk is the parts of the chunk terms is reading: words joined by
// joiners ("a.b", "x-y") or by a change of case ("fooBar").
type chunk struct {
	parts     []string
	seps      []rune // the joiner before each part, 0 for a case change or none
	buf       strings.Builder
	sep       rune // the joiner before the part in buf
	prev      rune // the previous word rune, as written
	prevUpper bool
}

// reset empties c for the next chunk, keeping its slices' room.
func (c *chunk) reset() {
	c.parts, c.seps = c.parts[:0], c.seps[:0]
	c.buf.Reset()
	c.sep, c.prev, c.prevUpper = 0, 0, false
}

// flush ends the part being read (at most maxParts are kept, each cut to
// maxWordBytes); next is the joiner before the next one.
func (c *chunk) flush(next rune) {
	if c.buf.Len() > 0 {
		if len(c.parts) < maxParts {
			c.parts = append(c.parts, cut(c.buf.String(), maxWordBytes))
			c.seps = append(c.seps, c.sep)
		}
		c.buf.Reset()
	}
	c.sep = next
}

// read reads the chunk that starts at i of s into c. It returns where
// the chunk ends and where reading stopped (past a possessive "'s").
func (c *chunk) read(s string, i int) (next, end int) {
	end = i
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case isWordRune(r):
			c.letter(r)
			i += n
			end = i
			continue
		case isApostrophe(r) && i+n < len(s):
			// "user's" is "user", "don't" is "dont".
			r2, n2 := utf8.DecodeRuneInString(s[i+n:])
			if isWordRune(r2) {
				after := i + n + n2
				if (r2 == 's' || r2 == 'S') && (after >= len(s) || !isWordRune(firstRune(s[after:]))) {
					i = after
					end = i
					continue
				}
				i += n
				continue
			}
		case isJoiner(r) && i+n < len(s) && isWordRune(firstRune(s[i+n:])):
			c.flush(r)
			i += n
			continue
		}
		break
	}
	return i, end
}

// letter adds the word rune r, starting a new part where the case says
// one starts: fooBar, and HTTPServer (the last capital starts "Server").
func (c *chunk) letter(r rune) {
	upper := unicode.IsUpper(r)
	if c.buf.Len() > 0 && upper && !c.prevUpper && unicode.IsLetter(c.prev) {
		c.flush(0)
	} else if c.buf.Len() > 0 && !upper && unicode.IsLower(r) && c.prevUpper {
		if b := c.buf.String(); utf8.RuneCountInString(b) > 1 {
			_, ln := utf8.DecodeLastRuneInString(b)
			last := b[len(b)-ln:]
			c.buf.Reset()
			c.buf.WriteString(b[:len(b)-ln])
			c.flush(0)
			c.buf.WriteString(last)
		}
	}
	foldInto(&c.buf, r)
	c.prev, c.prevUpper = r, upper
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// emitChunk emits the terms of one chunk: its parts that are no stop
// words, then the chunk whole and the tails of a path.
func emitChunk(parts []string, seps []rune, start, end int, emit func(term) bool) bool {
	for _, p := range parts {
		if !isStopWord(p) && !emit(term{text: p, start: start, end: end}) {
			return false
		}
	}
	if len(parts) < 2 {
		return true
	}
	if !emit(term{text: cut(strings.Join(parts, ""), maxWordBytes), whole: true, start: start, end: end}) {
		return false
	}
	for k := 1; k < len(parts)-1; k++ {
		if seps[k] == '/' || seps[k] == '\\' {
			if !emit(term{text: cut(strings.Join(parts[k:], ""), maxWordBytes), whole: true, start: start, end: end}) {
				return false
			}
		}
	}
	return true
}

// foldInto writes r lower-cased and without diacritics.
func foldInto(b *strings.Builder, r rune) {
	if unicode.Is(unicode.Mn, r) {
		return // a combining mark: the letter before it stands alone
	}
	r = unicode.ToLower(r)
	if r < 0x80 {
		b.WriteByte(byte(r))
		return
	}
	if f, ok := folded[r]; ok {
		b.WriteString(f)
		return
	}
	b.WriteRune(r)
}

// folded maps the Latin letters with diacritics to plain ones.
var folded = func() map[rune]string {
	m := make(map[rune]string)
	for plain, marked := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "d": "ďđð", "e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥħ",
		"i": "ìíîïĩīĭįı", "j": "ĵ", "k": "ķ", "l": "ĺļľŀł", "n": "ñńņňŉ", "o": "òóôõöøōŏő",
		"r": "ŕŗř", "s": "śŝşšſ", "t": "ţťŧ", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
		"ss": "ß", "ae": "æ", "oe": "œ", "th": "þ",
	} {
		for _, r := range marked {
			m[r] = plain
		}
	}
	return m
}()

// cut returns s cut to at most n bytes at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// isStopWord reports whether w (folded) says nothing about which fact is
// meant: an English function word, a word questions are made of, or a
// single letter.
func isStopWord(w string) bool {
	if len(w) == 1 && w[0] >= 'a' && w[0] <= 'z' {
		return true
	}
	return stopWords[w]
}

var stopWords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`
		a about above after again against all also am an and any are aren arent as at
		be because been before being below between both but by
		can cannot cant could couldn couldnt
		did didn didnt do does doesn doesnt doing don dont down during
		each either else ever every few for from further
		had hadn hadnt has hasn hasnt have haven havent having he her here hers herself him himself his how
		i if im in into is isn isnt it its itself ive just
		let lets me might mine more most must mustn my myself
		no nor not now of off on once only or other our ours ourselves out over own
		please same shall shan she should shouldn shouldnt so some such
		than that thats the their theirs them themselves then there these they this those through to too
		under until up upon us very
		was wasn wasnt we were weren werent what whats when where which while who whom whose why will with won wont would wouldn wouldnt
		yes yet you your youre yours yourself yourselves
		tell know remember recall anything something thing things
	`) {
		m[w] = true
	}
	return m
}()

// firstSentence returns body up to the end of its first sentence: a
// period, question or exclamation mark before white space, or a blank line.
func firstSentence(body string) string {
	body = strings.TrimSpace(body)
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '.', '?', '!':
			if i+1 == len(body) || body[i+1] == ' ' || body[i+1] == '\n' {
				return body[:i+1]
			}
		case '\n':
			if strings.HasPrefix(body[i+1:], "\n") {
				return body[:i]
			}
		}
	}
	return body
}
