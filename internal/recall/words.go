package recall

import (
	"strings"
	"unicode"
)

// Words returns the content words of a prompt, stemmed, each once, in
// order: the words that say what the prompt is about. Stop words, the
// small talk of a chat ("thanks", "ok", "please") and one-letter words are
// dropped.
func Words(prompt string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range tokens(prompt) {
		if stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// tokens splits text into lower-cased, stemmed words of letters and
// digits; words joined by - _ . / (identifiers, paths) are split into
// their parts.
func tokens(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		w = strings.Trim(w, "'")
		w = strings.TrimSuffix(w, "'s")
		if i := strings.IndexByte(w, '\''); i >= 0 {
			w = w[:i] // don't → don, that's → that
		}
		if len(w) < 2 {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem takes the commonest English inflections off a word, so that
// "deploys", "deployed" and "deploying" meet "deploy". It is crude and the
// same on both sides, which is all a match needs.
func stem(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 4 && strings.HasSuffix(w, "es") && strings.ContainsAny(w[len(w)-3:len(w)-2], "sxz"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// stopWords are stemmed words that say nothing about what a prompt is
// about: English function words, question words, the verbs of asking, and
// the small talk of a chat.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a about above after again against all also am an and any are aren as at be because been before
		being below between both but by can cannot could couldn did didn do does doesn doing don down
		during each either else ever every few for from further had hadn has hasn have haven having he
		her here hers herself him himself his how however if in into is isn it its itself just let me
		might more most much must mustn my myself neither no nor not now of off on once only or other
		ought our ours ourselves out over own same shall shan she should shouldn so some still such than
		that the their theirs them themselves then there these they this those though through to too
		under until up upon us very was wasn we were weren what when where whether which while who whom
		whose why will with within without won would wouldn yet you your yours yourself yourselves
		ll re ve im ive id youre thats whats theres lets
		ask tell show give get got go going gonna want wanna need like know think see look try make sure
		please thanks thank thx ty ok okay yes yeah yep no nope hi hello hey bye cool great good fine
		nice awesome perfect done right alright sounds well sorry lgtm go ahead continue proceed stop
		one two thing things something anything everything stuff way bit lot really actually maybe
		again already always never sometimes today tomorrow yesterday now later soon`) {
		m[stem(w)] = true
	}
	return m
}()
