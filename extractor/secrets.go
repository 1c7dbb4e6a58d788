package extractor

import (
	"math"
	"regexp"
	"strings"
	"unicode"
)

// Redacted replaces every secret in a transcript before it is sent to the
// model. A memory that contains it is rejected: it can only be about a
// secret.
const Redacted = "[REDACTED]"

// secretRule finds one kind of secret. group is the submatch that is the
// secret itself (0: the whole match); valid, when set, vets the candidate so
// that ordinary prose ("the secret is to keep it short") is not taken for one.
type secretRule struct {
	name  string
	hints []string // the rule runs only when s holds one of these (lower-cased), a cheap pre-check
	re    *regexp.Regexp
	group int
	valid func(s string) bool
}

var secretRules = []secretRule{
	{name: "private key", hints: []string{"private key"}, re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)},
	{name: "Anthropic key", hints: []string{"sk-ant-"}, re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
	{name: "OpenAI key", hints: []string{"sk-"}, re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`)},
	{name: "GitHub token", hints: []string{"gho_", "ghp_", "ghu_", "ghs_", "ghr_", "github_pat_"}, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{name: "AWS access key", hints: []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "aipa"}, re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`)},
	{name: "Slack token", hints: []string{"xox"}, re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{name: "Slack webhook", hints: []string{"hooks.slack.com"}, re: regexp.MustCompile(`https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+`)},
	{name: "Google API key", hints: []string{"aiza"}, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{name: "Stripe key", hints: []string{"_live_", "_test_"}, re: regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}`)},
	{name: "JWT", hints: []string{"eyj"}, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{name: "bearer token", hints: []string{"bearer"}, re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), group: 1},
	{name: "URL password", hints: []string{"://"}, re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@]+:([^\s/@]+)@`), group: 1, valid: notPlaceholder},
	{
		name:  "password",
		hints: []string{"pass", "pwd", "pin"},
		re:    regexp.MustCompile(`(?i)\b(?:[a-z0-9_.-]*(?:password|passwd|passphrase|passcode)[a-z0-9_]*|pwd|pin)(\s*[:=]\s*|\s+(?:is|was)\s+)("[^"\n]+"|'[^'\n]+'|\S+)`),
		group: 2,
	},
	{
		name:  "credential",
		hints: []string{"secret", "token", "key", "credential"},
		re:    regexp.MustCompile(`(?i)\b[a-z0-9_.-]*(?:secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)[a-z0-9_.-]*\s*[:=]\s*("[^"\n]+"|'[^'\n]+'|[^\s"',;]+)`),
		group: 1,
		valid: credentialLike,
	},
}

// secretSpans returns the byte ranges of the secrets in s, in order and not
// overlapping.
func secretSpans(s string) [][2]int {
	spans := randomTokens(s)
	lower := strings.ToLower(s)
	for _, r := range secretRules {
		if !containsAny(lower, r.hints) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			lo, hi := m[2*r.group], m[2*r.group+1]
			if lo < 0 {
				continue
			}
			if r.name == "password" {
				if !passwordLike(s[m[2]:m[3]], s[lo:hi]) {
					continue
				}
			} else if r.valid != nil && !r.valid(unquote(s[lo:hi])) {
				continue
			}
			spans = append(spans, [2]int{lo, hi})
		}
	}
	return mergeSpans(spans)
}

func mergeSpans(spans [][2]int) [][2]int {
	if len(spans) < 2 {
		return spans
	}
	// Insertion sort: a handful of spans at most.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j][0] < spans[j-1][0]; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// Redact replaces every secret in s with [Redacted] and reports how many it
// replaced.
func Redact(s string) (string, int) {
	spans := secretSpans(s)
	if len(spans) == 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString(Redacted)
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String(), len(spans)
}

// HasSecret reports whether s holds a secret, or the mark of one redacted.
func HasSecret(s string) bool {
	return strings.Contains(s, Redacted) || len(secretSpans(s)) > 0
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// notPlaceholder rejects values that stand for a secret without being one:
// "${DB_PASSWORD}", "<password>", "****", "[REDACTED]", "xxx".
func notPlaceholder(s string) bool {
	s = strings.TrimRight(s, ".,;:!?)")
	if s == "" || strings.ContainsAny(s[:1], "$<{[*%") {
		return false
	}
	return strings.Trim(strings.ToLower(s), "x*.") != ""
}

// passwordLike vets the value after "password": after ":" or "=" anything
// that is not a placeholder; after "is"/"was" (prose) only something that
// does not read as a word: digits, symbols, mixed case, or a long run.
func passwordLike(sep, value string) bool {
	v := strings.TrimRight(unquote(value), ".,;:!?)")
	if !notPlaceholder(v) || len(v) < 3 {
		return false
	}
	if strings.ContainsAny(sep, ":=") {
		return true
	}
	if len(v) >= 12 {
		return true
	}
	k := kinds(v)
	return k.digit || k.symbol || (k.upper && k.lower && !startsCapitalWord(v))
}

// credentialLike vets the value of a "…token=", "…secret:" assignment: long
// enough and mixed enough to be a key rather than a setting ("max_tokens=4000").
func credentialLike(s string) bool {
	if !notPlaceholder(s) || len(s) < 8 {
		return false
	}
	if len(s) >= 16 && !isWord(s) {
		return true
	}
	k := kinds(s)
	n := 0
	for _, b := range []bool{k.lower, k.upper, k.digit, k.symbol} {
		if b {
			n++
		}
	}
	return n >= 2
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// randomTokens finds runs of 32 or more token characters ([A-Za-z0-9+/=_-])
// that look machine-made (randomLike): keys of unknown shape, such as an AWS
// secret key. A scanner, not a regexp: it runs over every transcript.
func randomTokens(s string) [][2]int {
	var spans [][2]int
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isTokenByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 32 && randomLike(s[start:i]) {
			spans = append(spans, [2]int{start, i})
		}
		start = -1
	}
	return spans
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
}

// randomLike reports a long token that looks machine-made: upper, lower and
// digits, high character entropy, and not a path.
func randomLike(s string) bool {
	if strings.HasPrefix(s, "/") || strings.Count(s, "/") > 2 || strings.Contains(s, "//") {
		return false
	}
	k := kinds(s)
	return k.upper && k.lower && k.digit && entropy(s) >= 4.2
}

type charKinds struct{ lower, upper, digit, symbol bool }

func kinds(s string) charKinds {
	var k charKinds
	for _, r := range s {
		switch {
		case unicode.IsLower(r):
			k.lower = true
		case unicode.IsUpper(r):
			k.upper = true
		case unicode.IsDigit(r):
			k.digit = true
		default:
			k.symbol = true
		}
	}
	return k
}

func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// startsCapitalWord: "Monday", "Alice": a capital and then lower case only.
func startsCapitalWord(s string) bool {
	for i, r := range s {
		if (i == 0) != unicode.IsUpper(r) || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// entropy is the Shannon entropy of s in bits per character.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
