package secrets

import (
	"math"
	"strings"
	"unicode"
)

// Scanners for secrets of no fixed shape: random-looking tokens and hex keys.

// randomTokens finds runs of 32 or more token characters ([A-Za-z0-9+/=_-])
// that look machine-made (randomLike): keys of unknown shape, such as an AWS
// secret key or an Azure account key. An "=" inside a run is an assignment,
// not base64 padding, and ends it: "AWS_SECRET_ACCESS_KEY=…" loses its
// value, not its name. A scanner, not a regexp: it runs over every
// transcript.
func randomTokens(s string) []Finding {
	var spans []Finding
	start := -1
	for i := 0; i <= len(s); i++ {
		assign := i+1 < len(s) && s[i] == '=' && s[i+1] != '=' && isTokenByte(s[i+1])
		if i < len(s) && isTokenByte(s[i]) && !assign {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 32 && randomLike(s[start:i]) && !publicKey(s, start) && !madeOfIDs(s[start:i]) {
			spans = append(spans, Finding{Kind: "random token", Start: start, End: i})
		}
		start = -1
	}
	return spans
}

// idParts are the pieces of the names and ids memoryd and the agents make:
// dates and times ("2026-11-27", "T23-40-00", "T23:43:23Z") and UUIDs.
var idParts = lazyRegexp(`\d{4}-\d{2}-\d{2}|T\d{2}[-:]\d{2}[-:]\d{2}(?:\.\d+)?Z?|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// madeOfIDs reports a token that is random only for the dates, times and
// UUIDs in it: a Codex session file, 2026/11/27/rollout-2026-11-27T23-40-00-
// <uuid>. With them cut out, no piece of 32 characters or more that looks
// made is left.
func madeOfIDs(tok string) bool {
	if !strings.Contains(tok, "-") {
		return false
	}
	cut := idParts().ReplaceAllString(tok, " ")
	if cut == tok {
		return false
	}
	for _, piece := range strings.Fields(cut) {
		if len(piece) >= 32 && randomLike(piece) {
			return false
		}
	}
	return true
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
}

// randomLike reports a long token that looks machine-made: upper, lower and
// digits and high character entropy, and not a name made of words
// (identifier). A token with slashes is a path unless
// its letters and digits change kind often, as in base64 ("bPxRfiCY/K7M"),
// not once a word, as in "src/UserProfile2Card/index": a path's kind
// changes stay under 0.25 of its neighbouring pairs, random base64's are
// near 0.6 (0.35 one time in a thousand).
func randomLike(s string) bool {
	k := kinds(s)
	if !k.upper || !k.lower || !k.digit || entropy(s) < 4.2 || identifier(s) {
		return false
	}
	if !strings.Contains(s, "/") {
		return true
	}
	if strings.HasPrefix(s, "/") || strings.Contains(s, "//") {
		return false
	}
	pairs, changes := 0, 0
	for i := 1; i < len(s); i++ {
		a, b := kindOf(s[i-1]), kindOf(s[i])
		if a == 0 || b == 0 {
			continue
		}
		pairs++
		if a != b {
			changes++
		}
	}
	return pairs > 0 && float64(changes)/float64(pairs) >= 0.3
}

// identifier reports a long name made of words, as people write them in
// code and notes: "backoffWithJitterAndMaxElapsedTime2Seconds",
// "XMLHttpRequestUploadProgressEventHandler2", "prod-Assets-Eu1-LogsBucket".
// It splits s into words (at "_", "-", "/" and case changes: a capital and
// the lower-case letters after it are one word) and asks how many pairs of
// letters inside the words are common in English (commonPairs): at least 0.7
// per letter. Digit runs and runs of capitals (acronyms: "XML", "AMD") count
// for neither side, and may make up at most 40% of s; base64 with "+" or "="
// is never a name. Of a million random 32-character tokens (base62, or
// base62 with "_" and "-") that randomLike takes, this lets 4 or fewer go;
// of 40 characters or more, 1 or none.
func identifier(s string) bool {
	if strings.ContainsAny(s, "+=") {
		return false
	}
	letters, neutral, common := 0, 0, 0
	for i := 0; i < len(s); {
		k := kindOf(s[i])
		j := i + 1
		switch k {
		case 0:
			i++
			continue
		case 2: // a capital: a run of them is an acronym, one is a word's start
			for j < len(s) && kindOf(s[j]) == 2 {
				j++
			}
			if j-i > 1 {
				if j < len(s) && kindOf(s[j]) == 1 {
					j-- // the last capital starts the next word: "XMLHttp"
				}
				neutral += j - i
				i = j
				continue
			}
			fallthrough
		case 1:
			for j < len(s) && kindOf(s[j]) == 1 {
				j++
			}
			for x := i + 1; x < j; x++ {
				if commonPairs[pairIndex(s[x-1], s[x])] {
					common++
				}
			}
			letters += j - i
		case 3:
			for j < len(s) && kindOf(s[j]) == 3 {
				j++
			}
			neutral += j - i
		}
		i = j
	}
	return letters > 0 && neutral*5 <= (letters+neutral)*2 && common*10 >= letters*7
}

// commonPairs are the letter pairs (case folded) of 99% of the pairs in
// English prose (counted over the Go source tree's comments): 294 of 676.
var commonPairs = func() (set [26 * 26]bool) {
	for p := range strings.FieldsSeq(`ab ac ad af ag ai ak al am an ap ar as at au av ay ba be bi bj bl bo br bs bu by
		ca cc ce ch ci ck cl co cr cs ct cu cy da dd de di dl do dr ds du dy ea eb ec ed ee ef eg eh ei el em en ep
		eq er es et eu ev ew ex ey fa fe ff fi fl fo fr fs ft fu fy ga ge gh gi gl gn go gr gs gt gu ha he hi ho hr
		ht hu ia ib ic id ie if ig ik il im in io ip ir is it iv ix iz je ju ka ke ki kn ks la ld le lf li ll lo lr
		ls lt lu lw ly ma mb md me mi mm mo mp ms mu na nc nd ne nf ng ni nk nl nm nn no np ns nt nu nv ny oa ob oc
		od oe of og oi ok ol om on oo op or os ot ou ov ow pa pe ph pi pl po pp pr ps pt pu py qu ra rc rd re rf
		rg ri rk rl rm rn ro rr rs rt ru rv rw ry sa sc se sh si sk sl sm sn so sp sr ss st su sy ta tc te th ti tl
		tm to tp tr ts tt tu tw ty ua ub uc ud ue uf ug ui ul um un up ur us ut ux va ve vi vo wa we wh wi wn wo wr
		ws xa xe xi xp xt ye yi yl ym yn yp yr ys yt ze`) {
		set[pairIndex(p[0], p[1])] = true
	}
	return set
}()

// pairIndex numbers the pair of ASCII letters a, b, in either case.
func pairIndex(a, b byte) int { return int(a|0x20-'a')*26 + int(b|0x20-'a') }

// kindOf is 1 for a lower-case letter, 2 upper-case, 3 a digit, 0 anything else.
func kindOf(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		return 1
	case c >= 'A' && c <= 'Z':
		return 2
	case c >= '0' && c <= '9':
		return 3
	}
	return 0
}

// publicKey reports an SSH public key's base64 ("ssh-ed25519 AAAAC3…"),
// which is not a secret.
func publicKey(s string, start int) bool {
	if !strings.HasPrefix(s[start:], "AAAA") {
		return false
	}
	before := strings.TrimRight(s[:start], " ")
	typ := before[strings.LastIndexAny(before, " \n\t\"'`")+1:]
	return strings.HasPrefix(typ, "ssh-") || strings.HasPrefix(typ, "ecdsa-") || strings.HasPrefix(typ, "sk-ssh-") || strings.HasPrefix(typ, "sk-ecdsa-")
}

// Hex keys. A run of 32 or more hex digits (128 bits and up, "0x" allowed)
// is a secret when the text around it names it as one, because the same
// digits are also commit hashes, checksums and ids. The rule: among the four
// words before the run on its line, the nearest that is a secretWord (key,
// secret, token, password, …) or a hashWord (commit, sha256, checksum, id,
// …) decides; with neither there, the first three words after it on its line
// do. With no such word the run is left alone. So "the API key is 9f8e…"
// (64 hex) is redacted, "commit 3f2a…" (40 hex), "sha256 of the tarball is
// e3b0…" and a bare "9fceb02d…" are not, and a UUID never is (its runs are
// 12 digits at most). A hash named next to the word key ("the key fix
// landed in 3f2a…") is redacted too: a hash lost from a transcript costs
// little, and the gate rejects commit hashes anyway.
var (
	secretWords = wordList("key keys secret secrets token tokens password passwd passphrase pass pwd credential credentials apikey hmac psk bearer auth")
	hashWords   = wordList("commit commits committed sha sha1 sha256 sha512 md5 hash checksum digest revision rev object tree blob tag merge merged head branch show revert cherry pick checkout reset rebase bisect log diff fingerprint id uuid build etag integrity version image manifest")
)

// hexKeys finds the hex keys in s (see above).
func hexKeys(s string) []Finding {
	var spans []Finding
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && (kindOf(s[i]) != 0 || s[i] == '_') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 32 {
			lo := start
			if strings.HasPrefix(s[lo:i], "0x") || strings.HasPrefix(s[lo:i], "0X") {
				lo += 2
			}
			if i-lo >= 32 && isHex(s[lo:i]) && !cited(s, start, i) && namedSecret(s, start, i) {
				spans = append(spans, Finding{Kind: "hex key", Start: lo, End: i})
			}
		}
		start = -1
	}
	return spans
}

func isHex(s string) bool {
	letter, digit := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letter = true
		default:
			return false
		}
	}
	return letter && digit
}

// cited reports a blob hash in a cite, as metadata.cites holds them and
// people quote them: "src/app.go@<blob>", 40 or 64 hex digits (SHA-1 or
// SHA-256) after a path (with a "/" or a ".") and an "@".
func cited(s string, lo, hi int) bool {
	if lo == 0 || s[lo-1] != '@' || hi-lo != 40 && hi-lo != 64 {
		return false
	}
	before := s[:lo-1]
	path := before[strings.LastIndexAny(before, " \t\n\"'`(")+1:]
	return strings.ContainsAny(path, "/.")
}

// namedSecret reports whether the words around s[lo:hi] name it a secret.
func namedSecret(s string, lo, hi int) bool {
	before := s[max(0, lo-64):lo]
	before = before[strings.LastIndexByte(before, '\n')+1:]
	words := strings.FieldsFunc(strings.ToLower(before), notAlnum)
	for i := len(words) - 1; i >= 0 && i >= len(words)-4; i-- {
		if secretWords[words[i]] || hashWords[words[i]] {
			return secretWords[words[i]]
		}
	}
	after := s[hi:min(len(s), hi+48)]
	if i := strings.IndexByte(after, '\n'); i >= 0 {
		after = after[:i]
	}
	words = strings.FieldsFunc(strings.ToLower(after), notAlnum)
	for i := 0; i < len(words) && i < 3; i++ {
		if secretWords[words[i]] || hashWords[words[i]] {
			return secretWords[words[i]]
		}
	}
	return false
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

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
