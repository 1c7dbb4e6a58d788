package secrets

import (
	"regexp"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
)

// The maintained rules: gitleaks' default rule set (config.DefaultConfig,
// 222 rules of providers' key formats, kept up by the gitleaks project),
// read as data and run by this file. Only the rule set is used, not the
// gitleaks detector: that one brings archive readers, git sources and a
// logger, and compiles all 222 expressions (35 ms) before it reads a byte.
// Here the set is parsed the first time a text is screened (1.5 ms, once
// per process), and a rule's expression is compiled only when one of its
// keywords is in a text, so a screen of an ordinary fact compiles none or a
// few. A command that screens nothing pays only the 0.4 ms the packages
// of the rule set take to initialise.
//
// Followed from gitleaks: the keyword pre-check, the secret group (or the
// first non-empty group), the entropy floor, and the allowlists (global and
// per rule: regexes against the secret, the match or the line; stop words;
// "AND" conditions). Changed: a rule runs on each line holding one of its
// keywords, not on the whole text, at a fraction of the cost; the rules
// written to span lines (a private key, curl with its header on the next
// line: an expression with \n, \r, [\s\S] or (?s)) still get the whole
// text. Left out: rules that need a
// file path (memory files are markdown), and gitleaks' decoding of base64
// and percent-encoded text.

// glRule is one gitleaks rule, as the default config holds it.
type glRule struct {
	ID          string
	Regex       string
	Path        string
	SecretGroup int
	Entropy     float64
	Keywords    []string
	Allowlists  []*glAllow

	multiline bool // the expression can match across lines: it runs on the whole text

	once sync.Once
	re   *regexp.Regexp // nil when the expression does not compile in Go's syntax
}

// glAllow is one gitleaks allowlist: a finding it matches is no secret.
type glAllow struct {
	Condition   string // "AND": every check set must match; otherwise any
	RegexTarget string `toml:"regexTarget"` // "match", "line"; the secret by default
	Regexes     []string
	StopWords   []string `toml:"stopwords"`
	Paths       []string
	Commits     []string

	once sync.Once
	res  []*regexp.Regexp
}

type glConfig struct {
	Allowlist  *glAllow // [allowlist], the global one
	Allowlists []*glAllow
	Rules      []*glRule
}

// gitleaksRules parses the default config once. A config this version of
// the module cannot read leaves memoryd's own rules alone on duty rather
// than stopping every screen.
var gitleaksRules = sync.OnceValue(parseGitleaks)

func parseGitleaks() *glConfig {
	var c glConfig
	if err := toml.Unmarshal([]byte(config.DefaultConfig), &c); err != nil {
		return &glConfig{}
	}
	if c.Allowlist != nil {
		c.Allowlists = append(c.Allowlists, c.Allowlist)
	}
	for _, a := range c.Allowlists {
		lowerAll(a.StopWords)
	}
	for _, r := range c.Rules {
		r.multiline = len(r.Keywords) == 0 || containsAny(r.Regex, []string{`\n`, `\r`, `\s\S`, `(?s`})
		for i := range r.Keywords {
			r.Keywords[i] = strings.ToLower(r.Keywords[i])
		}
		for _, a := range r.Allowlists {
			lowerAll(a.StopWords)
		}
	}
	return &c
}

func (r *glRule) regexp() *regexp.Regexp {
	r.once.Do(func() { r.re, _ = regexp.Compile(r.Regex) })
	return r.re
}

func (a *glAllow) regexps() []*regexp.Regexp {
	a.once.Do(func() {
		for _, s := range a.Regexes {
			if re, err := regexp.Compile(s); err == nil {
				a.res = append(a.res, re)
			}
		}
	})
	return a.res
}

// gitleaksSpans returns the findings of the gitleaks rules in s; lower is
// s in lower case, pairs its byte pairs. Kind is "gitleaks rule " and the rule's id. A rule runs
// on each line that holds one of its keywords (a multi-line one on the
// whole text): the expressions are unanchored, and the cost of one grows
// with the length of the text it searches.
func gitleaksSpans(s, lower string, pairs *bytePairs) []Finding {
	c := gitleaksRules()
	var perLine []*glRule
	var found []Finding
	for _, r := range c.Rules {
		if r.Path != "" || r.Regex == "" || len(r.Keywords) > 0 && !pairs.holdsAny(lower, r.Keywords) {
			continue
		}
		if r.multiline {
			found = r.find(s, 0, c, found)
		} else {
			perLine = append(perLine, r)
		}
	}
	for at := 0; len(perLine) > 0 && at < len(s); {
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		line := s[at:end]
		lowerLine := strings.ToLower(line)
		for _, r := range perLine {
			if containsAny(lowerLine, r.Keywords) {
				found = r.find(line, at, c, found)
			}
		}
		at = end + 1
	}
	return found
}

// find appends the findings of r in text, which starts at offset in the
// screened text.
func (r *glRule) find(text string, offset int, c *glConfig, found []Finding) []Finding {
	re := r.regexp()
	if re == nil {
		return found
	}
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		lo, hi := secretGroup(r, m)
		if lo < 0 || lo == hi || r.Entropy != 0 && entropy(text[lo:hi]) <= r.Entropy {
			continue
		}
		if allowed(text, m, lo, hi, c.Allowlists) || allowed(text, m, lo, hi, r.Allowlists) {
			continue
		}
		found = append(found, Finding{Kind: "gitleaks rule " + r.ID, Start: offset + lo, End: offset + hi})
	}
	return found
}

// secretGroup is where the secret of match m is: the rule's secret group,
// or the first group that matched something, or the whole match.
func secretGroup(r *glRule, m []int) (int, int) {
	if r.SecretGroup > 0 {
		if 2*r.SecretGroup+1 >= len(m) {
			return -1, -1
		}
		return m[2*r.SecretGroup], m[2*r.SecretGroup+1]
	}
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 && m[g+1] > m[g] {
			return m[g], m[g+1]
		}
	}
	return m[0], m[1]
}

// allowed reports whether one of the allowlists lets the finding m (its
// secret s[lo:hi]) go, as gitleaks decides it for a text with no path or
// commit: a check of paths or commits never matches.
func allowed(s string, m []int, lo, hi int, lists []*glAllow) bool {
	secret := strings.ToLower(s[lo:hi])
	for _, a := range lists {
		target := s[lo:hi]
		switch a.RegexTarget {
		case "match":
			target = s[m[0]:m[1]]
		case "line":
			start := strings.LastIndexByte(s[:m[0]], '\n') + 1
			end := strings.IndexByte(s[m[1]:], '\n')
			if end < 0 {
				end = len(s) - m[1]
			}
			target = s[start : m[1]+end]
		}
		byRegex := false
		for _, re := range a.regexps() {
			if re.MatchString(target) {
				byRegex = true
				break
			}
		}
		byWord := containsAny(secret, a.StopWords)
		if strings.EqualFold(a.Condition, "AND") {
			if len(a.Paths) == 0 && len(a.Commits) == 0 && (len(a.Regexes) == 0 || byRegex) && (len(a.StopWords) == 0 || byWord) {
				return true
			}
			continue
		}
		if byRegex || byWord {
			return true
		}
	}
	return false
}

func lowerAll(words []string) {
	for i := range words {
		words[i] = strings.ToLower(words[i])
	}
}

// Pairs is the set of the pairs of bytes next to each other in a text, for
// other packages' keyword prefilters (the gate's planted-instruction
// rules): a word none of whose pairs is missing may be in the text.
type Pairs = bytePairs

// Add records the pairs of s.
func (b *bytePairs) Add(s string) { b.add(s) }

// MayHold reports whether every pair of w is in the set (a word of one
// byte always may).
func (b *bytePairs) MayHold(w string) bool { return b.mayHold(w) }

// bytePairs is the set of the pairs of bytes next to each other in a text:
// a keyword one of whose pairs is not in it is not in the text either, a
// test much cheaper than a search of the text for each of 290 keywords.
type bytePairs [1 << 16 / 64]uint64

func (b *bytePairs) add(s string) {
	for i := 1; i < len(s); i++ {
		p := uint16(s[i-1])<<8 | uint16(s[i])
		b[p>>6] |= 1 << (p & 63)
	}
}

// holdsAny reports whether s, whose pairs b holds, contains one of words.
func (b *bytePairs) holdsAny(s string, words []string) bool {
	for _, w := range words {
		if b.mayHold(w) && strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func (b *bytePairs) mayHold(w string) bool {
	for i := 1; i < len(w); i++ {
		p := uint16(w[i-1])<<8 | uint16(w[i])
		if b[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}
