package secrets

import (
	"regexp"
	"strings"
)

// This file vets a rule's match before it counts as a secret: a
// placeholder, a flag, a pointer to a password store, prose, a date.

// vetValue makes a vet of a test of the unquoted secret.
func vetValue(valid func(string) bool) func(string, []int, int, int) (int, int, bool) {
	return func(s string, _ []int, lo, hi int) (int, int, bool) { return lo, hi, valid(unquote(s[lo:hi])) }
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// notPlaceholder rejects values that stand for a secret without being one:
// "${DB_PASSWORD}", "<password>", "****", "[REDACTED]", "xxx", "…".
func notPlaceholder(s string) bool {
	s = strings.TrimRight(s, ".,;:!?)")
	if s == "" || strings.ContainsAny(s[:1], "$<{[*%") {
		return false
	}
	return strings.Trim(strings.ToLower(s), "x*.…") != ""
}

// settingWords are values a password or token setting takes that are not
// secrets: "pin: true", "password: required".
var settingWords = wordList("true false null none nil yes no on off empty required optional unset undefined disabled enabled default stdin prompt")

// flagValue vets the value of a command-line option: not a placeholder, a
// setting, a file path ("--secret /run/x") or prose about the option ("pass
// the --token flag", "never use docker login -p in CI").
func flagValue(s string) bool {
	l := strings.ToLower(s)
	return notPlaceholder(s) && !settingWords[l] && !proseWords[l] && !flagWords[l] && !pathLike(s)
}

var flagWords = wordList("flag flags option options argument arguments parameter parameters value values switch instead")

// aboutSecret matches the names of settings that are about a secret, not the
// secret: "secret_name", "token_url", "password_policy", "api_key_id".
var aboutSecret = regexp.MustCompile(`(?i)[_.-]?(?:name|names|ref|file|path|dir|url|uri|type|kind|id|count|length|len|size|ttl|expiry|expires|version|env|field|header|prefix|policy|rules)$`)

// vetCredential vets a credential assignment: a name that is not about a
// secret (m[2:4]) and a value that looks made.
func vetCredential(s string, m []int, lo, hi int) (int, int, bool) {
	return lo, hi, !aboutSecret.MatchString(s[m[2]:m[3]]) && credentialLike(unquote(s[lo:hi]))
}

// firstGroup makes a vet of a test of the first group that matched: the
// value of a regexp made of alternatives.
func firstGroup(valid func(string) bool) func(string, []int, int, int) (int, int, bool) {
	return func(s string, m []int, _, _ int) (int, int, bool) {
		for i := 2; i < len(m); i += 2 {
			if m[i] >= 0 {
				return m[i], m[i+1], valid(unquote(s[m[i]:m[i+1]]))
			}
		}
		return 0, 0, false
	}
}

func pathLike(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../")
}

// vetPassword vets the value after "password" (m[2:4] is the setting's
// name, m[4:6] what joins it to the value). After "=" the value is one
// token. After ":" or "is"/"was" a value that is a plain word runs on over
// the plain words after it, a passphrase ("correct horse battery staple");
// in prose ("is") three such words are needed, so that "the password is
// wrong, try again" stays prose.
func vetPassword(s string, m []int, lo, hi int) (int, int, bool) {
	sep, v := s[m[4]:m[5]], s[lo:hi]
	if aboutSecret.MatchString(s[m[2]:m[3]]) {
		return lo, hi, false
	}
	if v[0] != '"' && v[0] != '\'' && !strings.Contains(sep, "=") && pointsToStore(s, lo, hi) {
		return lo, hi, false
	}
	if v[0] != '"' && v[0] != '\'' && !strings.Contains(sep, "=") {
		end, words := passphrase(s, lo)
		if words >= 3 || words == 2 && strings.Contains(sep, ":") {
			return lo, end, true
		}
	}
	return lo, hi, passwordLike(sep, v)
}

// pointsToStore reports a password hint that says where the password is
// kept rather than what it is — the advice memoryd gives: "password: see the
// 1Password item Prod DB", "password: ask Ana", "password: stored in the
// vault", "password: op://Prod/db/password" (a 1Password reference). The
// value s[lo:hi] is a password manager's name or reference, or a pointerWord
// with more words after it on the line ("password: see" alone is still a
// password).
func pointsToStore(s string, lo, hi int) bool {
	v := strings.ToLower(strings.TrimRight(s[lo:hi], ".,;:!?)"))
	if passwordStores[v] || strings.HasPrefix(v, "op://") {
		return true
	}
	if !pointerWords[v] {
		return false
	}
	rest := strings.TrimLeft(s[hi:], " \t")
	return len(rest) < len(s[hi:]) && rest != "" && kindOf(rest[0]) != 0
}

// passwordStores are password managers, named where a password would be.
var passwordStores = wordList("1password bitwarden lastpass keepass keepassxc keepassx dashlane keychain gopass nordpass enpass proton-pass")

// pointerWords start a hint about where a password is: "see the …", "ask
// …", "in the vault", "stored in …".
var pointerWords = wordList(`see ask check look use get fetch find read copy retrieve query open search request consult
	stored kept saved managed held lives sits in on at from via vault same shared rotated generated provided given sent`)

// passwordLike vets a single password value: after ":" or "=" anything that
// is not a placeholder, a setting or a path; after "is"/"was" (prose) only
// something that does not read as a word: digits, symbols, mixed case, or a
// long run.
func passwordLike(sep, value string) bool {
	v := strings.TrimRight(unquote(value), ".,;:!?)")
	if !notPlaceholder(v) || len(v) < 3 || settingWords[strings.ToLower(v)] || pathLike(v) {
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

// proseWords end a passphrase: the words prose goes on with after "my
// password is" ("stored in the vault", "never logged", "the same as …").
var proseWords = wordList(`a an the and or but so for in on at to of from by with without as is are was were be been being
	not no never always now then still also just only too very than that this these those it its if when while because since
	until via per into onto over under after before again here there already yet should must will would can could may might
	has have had do does did stored kept saved set changed rotated required needed managed generated shared hashed encrypted
	expired reset sent given written used missing empty wrong incorrect invalid valid same different long short strong weak
	hard easy secret private public optional mandatory thanks please i we you he she they my our your his her their me us
	them what which who where how why all any some every each both more most less least enough ok okay fine good bad new old
	right really usually currently probably actually simply rarely weekly daily monthly nightly automatically randomly
	securely properly`)

// passphrase counts the plain words of a password value that starts at lo,
// up to the end of its clause (punctuation, a line end) or a proseWord. It
// returns the end of the last word and how many there are.
func passphrase(s string, lo int) (end, words int) {
	end = lo
	for at := lo; words < 8 && at < len(s); {
		j := at
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' {
			j++
		}
		w := s[at:j]
		core := strings.TrimRight(w, `.,;:!?)'"`+"`")
		if len(core) < 2 || !isWord(core) || proseWords[strings.ToLower(core)] {
			break
		}
		end, words = at+len(core), words+1
		if len(core) < len(w) || j >= len(s) || s[j] != ' ' {
			break
		}
		at = j + 1
	}
	return end, words
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

// proseKey vets a key named in prose ("the token is …"): letters and
// digits, and mixed case or long, so that "the token is gpt-4o-mini" stays.
func proseKey(s string) bool {
	s = strings.TrimRight(s, ".:")
	k := kinds(s)
	return notPlaceholder(s) && !pathLike(s) && k.digit && (k.upper && k.lower || len(s) >= 20)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func wordList(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

// vetLocalPassword vets a password labelled in another language or with a
// fullwidth colon: as vetPassword, and the value is no pointer word of
// those languages ("Passwort: siehe Tresor", "mot de passe : voir le
// coffre").
func vetLocalPassword(s string, m []int, lo, hi int) (int, int, bool) {
	v := strings.ToLower(strings.TrimRight(s[lo:hi], ".,;:!?)"))
	if localPointers[v] {
		return lo, hi, false
	}
	for _, p := range cjkPointers {
		if strings.HasPrefix(v, p) {
			return lo, hi, false
		}
	}
	// "Mot de passe :" and the German one "Passwort:": the quote closes
	// the label and opens no value.
	if q := unquote(v); q != v && strings.TrimSpace(q) != q {
		return lo, hi, false
	}
	return vetPassword(s, m, lo, hi)
}

// localPointers start a hint about where a password is, in the languages
// the label rule reads.
var localPointers = wordList(`siehe im in beim bei liegt steht fragen frag gespeichert voir dans demander chez stocké ver en
	pedir preguntar guardada guardado veja ver pergunte zie vraag в см спросить спроси хранится`)

// cjkPointers start such a hint in languages written without spaces:
// "密码：见团队保险库" (see the team vault).
var cjkPointers = []string{"见", "參見", "参见", "存", "保存", "询问", "詢問", "请", "請", "在", "参照", "保管"}

// vetPgpass vets a .pgpass line: its last field no placeholder and not a
// number alone (a time or a version: 10:30:00:12:59), and the line no time
// of day with a date — "2026-11-27T23:43:23Z..2026-11-27T23:45:01Z", the
// range of messages memoryd records, has the fields' shape.
func vetPgpass(s string, m []int, lo, hi int) (int, int, bool) {
	v := s[lo:hi]
	ok := notPlaceholder(v) && strings.Trim(v, "0123456789.") != "" && !dateTime().MatchString(s[m[0]:m[1]])
	return lo, hi, ok
}

var dateTime = lazyRegexp(`\d{4}-\d{2}-\d{2}[T ]\d{2}`)

// vetCookie vets a cookie header's value: it is a secret when one of its
// name=value pairs holds a value that looks made ("session=8f3kd93k…"),
// not "theme=dark" alone. The span is the whole header value.
func vetCookie(s string, _ []int, lo, hi int) (int, int, bool) {
	v := strings.TrimRight(s[lo:hi], " \t\r")
	for _, pair := range strings.Split(v, ";") {
		_, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if f := strings.Fields(val); ok && len(f) > 0 && credentialLike(strings.Trim(f[0], `"`)) {
			return lo, lo + len(v), true
		}
	}
	return lo, hi, false
}
