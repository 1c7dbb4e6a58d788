package search

// stem returns the stem of a folded term by M. F. Porter's algorithm (1980,
// with the two changes of his own later C version: -bli to -ble and -logi
// to -log), the stemmer of SQLite's porter tokenizer: "indenting",
// "indented" and "indents" are "indent". Words of two letters or fewer, or
// with anything but the letters a to z, are their own stem.
func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	p := porter{b: []byte(w)}
	p.step1ab()
	if len(p.b) > 2 {
		p.step1c()
		p.step2()
		p.step3()
		p.step4()
		p.step5()
	}
	return string(p.b)
}

// porter is a word being stemmed; j marks the end of the stem that a
// suffix just matched leaves (the word is b[:j]+suffix).
type porter struct {
	b []byte
	j int
}

// cons reports whether b[i] is a consonant: not a vowel, and not a y after
// a consonant.
func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// measure is m of b[:end]: the number of vowel-consonant sequences, in the
// form [C](VC)^m[V].
func (p *porter) measure(end int) int {
	m, i := 0, 0
	for i < end && p.cons(i) {
		i++
	}
	for i < end {
		for i < end && !p.cons(i) {
			i++
		}
		if i >= end {
			break
		}
		m++
		for i < end && p.cons(i) {
			i++
		}
	}
	return m
}

// hasVowel reports whether b[:end] has a vowel.
func (p *porter) hasVowel(end int) bool {
	for i := 0; i < end; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

// doubleCons reports whether b[:end] ends in a double consonant.
func (p *porter) doubleCons(end int) bool {
	return end >= 2 && p.b[end-1] == p.b[end-2] && p.cons(end-1)
}

// cvc reports whether b[:end] ends consonant-vowel-consonant, the last not
// w, x or y: such a stem ends a short syllable (hop, fil).
func (p *porter) cvc(end int) bool {
	if end < 3 || !p.cons(end-1) || p.cons(end-2) || !p.cons(end-3) {
		return false
	}
	switch p.b[end-1] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether the word ends in s, setting j to where s starts.
func (p *porter) ends(s string) bool {
	n := len(s)
	if n > len(p.b) || string(p.b[len(p.b)-n:]) != s {
		return false
	}
	p.j = len(p.b) - n
	return true
}

// setTo replaces the suffix after j by s.
func (p *porter) setTo(s string) { p.b = append(p.b[:p.j], s...) }

// replaceIf replaces the suffix after j by s when the stem's measure is
// above m.
func (p *porter) replaceIf(m int, s string) {
	if p.measure(p.j) > m {
		p.setTo(s)
	}
}

func (p *porter) step1ab() {
	switch {
	case p.ends("sses"):
		p.setTo("ss")
	case p.ends("ies"):
		p.setTo("i")
	case p.ends("ss"):
	case p.ends("s"):
		p.setTo("")
	}
	if p.ends("eed") {
		p.replaceIf(0, "ee")
		return
	}
	if !(p.ends("ed") || p.ends("ing")) || !p.hasVowel(p.j) {
		return
	}
	p.setTo("")
	switch {
	case p.ends("at"):
		p.setTo("ate")
	case p.ends("bl"):
		p.setTo("ble")
	case p.ends("iz"):
		p.setTo("ize")
	case p.doubleCons(len(p.b)):
		switch p.b[len(p.b)-1] {
		case 'l', 's', 'z':
		default:
			p.b = p.b[:len(p.b)-1]
		}
	case p.measure(len(p.b)) == 1 && p.cvc(len(p.b)):
		p.b = append(p.b, 'e')
	}
}

func (p *porter) step1c() {
	if p.ends("y") && p.hasVowel(p.j) {
		p.b[len(p.b)-1] = 'i'
	}
}

// suffixRule is a suffix and what replaces it.
type suffixRule struct{ suffix, with string }

// applyRules replaces the first (longest) suffix of rules the word ends in
// when the stem's measure is above m; no other rule is tried.
func (p *porter) applyRules(m int, rules []suffixRule) {
	for _, r := range rules {
		if p.ends(r.suffix) {
			p.replaceIf(m, r.with)
			return
		}
	}
}

// The rules of steps 2 and 3, longest suffix first among those sharing an
// ending.
var step2Rules = []suffixRule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
	{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
	{"logi", "log"},
}

var step3Rules = []suffixRule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

func (p *porter) step2() {
	// Only the rule of the longest suffix the word ends in counts:
	// "ational" before "tional", "ization" before "ation".
	best := -1
	for i, r := range step2Rules {
		if p.ends(r.suffix) && (best < 0 || len(r.suffix) > len(step2Rules[best].suffix)) {
			best = i
		}
	}
	if best >= 0 {
		p.ends(step2Rules[best].suffix)
		p.replaceIf(0, step2Rules[best].with)
	}
}

func (p *porter) step3() { p.applyRules(0, step3Rules) }

var step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
}

func (p *porter) step4() {
	best := ""
	for _, s := range step4Suffixes {
		if len(s) > len(best) && p.ends(s) {
			best = s
		}
	}
	if best == "" {
		return
	}
	p.ends(best)
	if best == "ion" && (p.j == 0 || (p.b[p.j-1] != 's' && p.b[p.j-1] != 't')) {
		return
	}
	if p.measure(p.j) > 1 {
		p.setTo("")
	}
}

func (p *porter) step5() {
	if p.ends("e") {
		m := p.measure(p.j)
		if m > 1 || m == 1 && !p.cvc(p.j) {
			p.setTo("")
		}
	}
	if n := len(p.b); n > 0 && p.b[n-1] == 'l' && p.doubleCons(n) && p.measure(n) > 1 {
		p.b = p.b[:n-1]
	}
}

// Stem is the stem search matches a lower-case word by (Porter's
// algorithm), for other packages that compare texts as search does: the
// compactor's check that a merge keeps what its files said.
func Stem(w string) string { return stem(w) }
