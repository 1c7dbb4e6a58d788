// Package secrets finds secrets — API keys, tokens, private keys, passwords — in text: one
// detector for redacting transcripts before they are sent to a model, for the gate that keeps
// them out of memory files, and for the scan of staged files before every commit.
package secrets

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces every secret in a transcript before it is sent to the
// model. A memory that contains it is rejected: it can only be about a
// secret.
const Redacted = "[REDACTED]"

// A Finding is one secret in a text: the rule that found it and where it
// is. It never holds the secret itself, so it can be logged and shown.
type Finding struct {
	Kind       string // the rule: "GitHub token", "password", "hex key", …
	Line       int    // 1-based line of the secret's first byte
	Start, End int    // byte offsets of the secret in the text
}

// FindSecrets returns the secrets in text, in order and not overlapping.
// It is the one detector behind Redact (transcripts before they are sent),
// HasSecret (the quality gate) and the check of staged files before a
// commit. Safe for concurrent use.
func FindSecrets(text string) []Finding {
	found := secretSpans(text)
	line, at := 1, 0
	for i := range found {
		line += strings.Count(text[at:found[i].Start], "\n")
		at = found[i].Start
		found[i].Line = line
	}
	return found
}

// Redact replaces every secret in s with [Redacted] and reports how many it
// replaced.
func Redact(s string) (string, int) {
	if s == "" {
		return s, 0
	}
	spans := secretSpans(s)
	if len(spans) == 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.Start])
		b.WriteString(Redacted)
		at = sp.End
	}
	b.WriteString(s[at:])
	return b.String(), len(spans)
}

// HasSecret reports whether s holds a secret, or the mark of one redacted.
func HasSecret(s string) bool {
	return strings.Contains(s, Redacted) || len(secretSpans(s)) > 0
}

// secretRule finds one kind of secret. group is the submatch that is the
// secret (0: the whole match). vet, when set, decides whether the match m,
// whose secret is s[lo:hi], is one, and where it is: it keeps ordinary
// prose ("the secret is to keep it short") from being taken for a secret.
type secretRule struct {
	name  string
	hints []string // the rule runs only when s holds one of these (lower-cased), a cheap pre-check
	expr  string   // compiled on the rule's first use (regexp)
	group int
	vet   func(s string, m []int, lo, hi int) (int, int, bool)
	line  bool // the rule runs on each line that holds a hint, not on the whole text

	once sync.Once
	re   *regexp.Regexp
}

// lazyRegexp is an expression compiled on its first use, not at the start
// of every memoryd process.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// regexp is the rule's expression, compiled the first time a text holds
// one of its hints.
func (r *secretRule) regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// secretValue is how an option's value is written: quoted, or up to a space.
const secretValue = `("[^"\n]*"|'[^'\n]*'|[^\s"'` + "`" + `]\S*)`

// tokenPrefixes start the tokens that services issue with a fixed prefix.
// One cut short by a truncation that marks its cut ("ghp_aB3…", or
// cutMiddle's "[… cut …]") is still one: what is left of it must not reach
// the model.
const tokenPrefixes = `gh[pousr]_|github_pat_|gl(?:pat|dt|ptt|rt)-|sk-|xox[abposre]-|xapp-|AKIA|ASIA|AIza|eyJ|(?:sk|rk)_(?:live|test)_|whsec_|npm_|hf_|pypi-|SG\.|do[opr]_v1_|shp(?:at|ss|ca|pa)_`

// secretRules are listed the first time they are used, and each is
// compiled the first time a text holds one of its hints: compiling them all
// costs 2.5 ms, which every memoryd process would pay at start otherwise.
var secretRules = sync.OnceValue(func() []*secretRule { return append(ownRules(), proseRules()...) })

// ownRules are memoryd's own rules, in the order they are tried: the
// providers' key formats, then passwords on command lines, then values
// assigned to a secret's name (in code, configuration or prose).
func ownRules() []*secretRule {
	return slices.Concat(keyRules(), commandRules(), assignedRules())
}

// keyRules find the keys and tokens whose format says what they are.
func keyRules() []*secretRule {
	return []*secretRule{
		{name: "private key", hints: []string{"private key"}, expr: (`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)},
		{name: "age key", hints: []string{"age-secret-key-"}, expr: (`AGE-SECRET-KEY-1[0-9A-Z]{20,}`)},
		{name: "Anthropic key", hints: []string{"sk-ant-"}, expr: (`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
		{name: "OpenAI key", hints: []string{"sk-"}, expr: (`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`)},
		{name: "GitHub token", hints: []string{"gho_", "ghp_", "ghu_", "ghs_", "ghr_", "github_pat_"}, expr: (`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
		{name: "GitLab token", hints: []string{"glpat-", "gldt-", "glptt-", "glrt-"}, expr: (`\bgl(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,}`)},
		{name: "AWS access key", hints: []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "aipa"}, expr: (`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`)},
		{name: "Slack token", hints: []string{"xox", "xapp-"}, expr: (`\b(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}`)},
		{name: "Slack webhook", hints: []string{"hooks.slack.com"}, expr: (`https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+`)},
		{name: "Google API key", hints: []string{"aiza"}, expr: (`\bAIza[0-9A-Za-z_-]{35}`)},
		{name: "Stripe key", hints: []string{"_live_", "_test_", "whsec_"}, expr: (`\b(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[A-Za-z0-9]{24,})`)},
		{name: "package registry token", hints: []string{"npm_", "pypi-"}, expr: (`\b(?:npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,})`)},
		{name: "Hugging Face token", hints: []string{"hf_"}, expr: (`\bhf_[A-Za-z0-9]{30,}`)},
		{name: "SendGrid key", hints: []string{"sg."}, expr: (`\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`)},
		{name: "DigitalOcean token", hints: []string{"_v1_"}, expr: (`\bdo[opr]_v1_[a-f0-9]{64}`)},
		{name: "Shopify token", hints: []string{"shpat_", "shpss_", "shpca_", "shppa_"}, expr: (`\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`)},
		{name: "Telegram bot token", hints: []string{":aa"}, expr: (`\b\d{8,10}:AA[A-Za-z0-9_-]{30,}`)},
		{name: "JWT", hints: []string{"eyj"}, expr: (`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
		{name: "cut token", hints: []string{"…"}, expr: (`\b((?:` + tokenPrefixes + `)[A-Za-z0-9_.-]*)(?:…|\n\[… cut …\])`), group: 1},
		{name: "bearer token", hints: []string{"bearer"}, expr: (`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), group: 1},
		{name: "authorization header", hints: []string{"authorization"}, expr: (`(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:basic|bearer|token|digest|apikey|key|sso-key)\s+([A-Za-z0-9._~+/:-]{6,}=*)`), group: 1, vet: vetValue(notPlaceholder)},
		{name: "URL password", hints: []string{"://"}, expr: (`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@]*:([^\s/@]+)@`), group: 1, vet: vetValue(notPlaceholder)},
		{name: "Azure key", hints: []string{"accountkey", "sharedaccesskey"}, expr: (`(?i)\b(?:AccountKey|SharedAccessKey)\s*=\s*([^\s;&"']+)`), group: 1, vet: vetValue(notPlaceholder)},
		{name: "Azure signature", hints: []string{"sig="}, expr: (`[?&]sig=([A-Za-z0-9%+/=]{16,})`), group: 1},
	}
}

// commandRules find passwords given to commands on their command line.
func commandRules() []*secretRule {
	return []*secretRule{
		{
			// mysql -pS3cret: the password is glued to -p ("mysql -p" alone prompts).
			name: "mysql password", hints: []string{"mysql", "mariadb"},
			expr:  (`\b(?:mysql\w*|mariadb[\w-]*)\b[^\n;|&]*?\s-p("[^"\n]*"|'[^'\n]*'|[^\s"'` + "`" + `-]\S*)`),
			group: 1, vet: vetValue(notPlaceholder),
		},
		{
			// sshpass -p X, docker/podman/oc/cf/az login -p X, sqlcmd -P X, redis-cli -a X.
			name: "command password", hints: []string{"sshpass", "login", "sqlcmd", "redis-cli"},
			expr: (`(?:\bsshpass|\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|oc|cf|az)\s+(?:registry\s+)?login)\b[^\n;|&]*?\s-p(?:\s+|=)?` + secretValue +
				`|\bsqlcmd\b[^\n;|&]*?\s-P\s*` + secretValue + `|\bredis-cli\b[^\n;|&]*?\s-a\s+` + secretValue),
			vet: firstGroup(flagValue),
		},
		{
			// curl -u user:pw, curl --user=user:pw, httpie -a user:pw ("-u user" alone prompts).
			name: "curl password", hints: []string{"curl", "http"},
			expr:  (`\b(?:curl|https?)\b[^\n;|&]*?\s(?:-u|--user|-a|--auth)(?:\s+|=)?["']?[^\s:"']*:([^\s"']+)`),
			group: 1, vet: vetValue(notPlaceholder),
		},
		{name: "netrc password", hints: []string{"machine"}, expr: (`\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(\S+)`), group: 1, vet: vetValue(notPlaceholder)},
		{name: "openssl password", hints: []string{"pass:"}, expr: (`(?i)-pass(?:in|out|word)?\s+pass:(\S+)`), group: 1},
	}
}

// assignedRules find the values given to a password's or a key's name.
func assignedRules() []*secretRule {
	return []*secretRule{
		{
			// --password X, --client-secret=X, -storepass X, --token X.
			name: "password option", hints: []string{"-pass", "-pwd", "-secret", "-token", "-api-key", "-apikey", "storepass", "keypass"},
			expr:  (`(?i)(?:^|\s)(?:--?(?:[a-z]+-)*(?:password|passwd|passphrase|pass|pwd|secret|token|api-key|apikey)|-(?:src|dest|new)?(?:store|key)pass)(?:\s+|=)` + secretValue),
			group: 1, vet: vetValue(flagValue),
		},
		{
			// Passwort: X, mot de passe : X, contraseña: X, пароль: X,
			// 密码：X (a fullwidth colon), password：X. Compounds count
			// (Datenbankpasswort: X); prose without a colon does not
			// ("change your Passwort every 90 days"). Groups as in
			// "password" below, so vetPassword applies.
			name: "password", hints: []string{"passwort", "kennwort", "passe", "contrase", "senha", "wachtwoord", "hasło", "haslo", "lösenord", "losenord", "salasana", "passord", "adgangskode", "пароль", "密码", "密碼", "口令", "パスワード", "비밀번호", "password："},
			expr:  (`(?i)([\p{L}0-9_.-]*(?:passwort|kennwort|mot de passe|contraseña|contrasena|senha|wachtwoord|hasło|haslo|lösenord|losenord|salasana|passord|adgangskode|пароль|密码|密碼|口令|パスワード|비밀번호)|[a-z0-9_.-]*password)["']?(\s*(?:[:=]|：)\s*)("[^"\n]*"|'[^'\n]*'|[^\s"'「」]+)`),
			group: 3, vet: vetLocalPassword,
		},
		{
			// A .pgpass line: host:port:database:user:password, whole
			// fields, the port a number or *, nothing after the password.
			name: "pgpass password", hints: []string{":"},
			expr:  (`(?m)(?:^|[\s` + "`" + `'"])[A-Za-z0-9._*\[\]-]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:([^\s:` + "`" + `'"]+)(?:$|[\s` + "`" + `'",;)])`),
			group: 1, vet: vetPgpass,
		},
		{
			// otpauth://totp/Acme:ana?secret=JBSWY3DP&issuer=Acme: the seed of
			// every one-time code.
			name: "OTP secret", hints: []string{"otpauth://"},
			expr:  (`(?i)otpauth://[a-z]+/[^\s?]*\?(?:[^\s#]*?[&;])?secret=([A-Za-z2-7=%]+)`),
			group: 1,
		},
		{
			// Cookie: session=X; theme=dark, Set-Cookie: sid=X, curl -b
			// 'sid=X', --cookie "sid=X": a session cookie is a login.
			name: "session cookie", hints: []string{"cookie", "-b "},
			expr:  (`(?i)(?:\b(?:set-)?cookie["']?\s*:\s*|\bcurl\b[^\n;|&]*?\s(?:-b|--cookie)(?:\s+|=))["']?([^\n"']+)`),
			group: 1, vet: vetCookie,
		},
		{
			// password=X, "password": "X", PGPASSWORD=X, db_pass: X, pin: X,
			// "my password is X" (prose: see vetPassword).
			name: "password", hints: []string{"pass", "pwd", "pin"},
			expr:  (`(?i)\b([a-z0-9_.-]*(?:password|passwd|passphrase|passcode)[a-z0-9_]*|[a-z0-9_.-]*pwd|[a-z0-9]+[_.-]pass|pin)["']?(\s*(?:=>|[:=])\s*|\s+(?:is|was)\s+)("[^"\n]*"|'[^'\n]*'|\S+)`),
			group: 3, vet: vetPassword,
		},
		{
			// api_key=X, "client_secret": "X", X-Api-Key: X, token: X.
			name: "credential", hints: []string{"secret", "token", "key", "credential"},
			expr:  (`(?i)\b([a-z0-9_.-]*(?:secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|account[_-]?key|credentials?)[a-z0-9_.-]*)["']?\s*(?:=>|[:=])\s*("[^"\n]+"|'[^'\n]+'|[^\s"',;@]+)`),
			group: 2, vet: vetCredential,
		},
		{
			// "my API key is Zx81kLmQ02pRt7Vw": in prose the value must look made.
			name: "credential", hints: []string{"secret", "token", "key"},
			expr:  (`(?i)\b(?:api[ _-]?key|secret[ _-]?key|access[ _-]?key|client[ _-]?secret|(?:auth|access|api|bot)[ _-]?token|token|secret)\s+(?:is|was)\s+["'` + "`" + `]?([A-Za-z0-9_./+=:-]{8,})`),
			group: 1, vet: vetValue(proseKey),
		},
	}
}

// secretSpans returns the secrets in s, in order and not overlapping,
// without their line numbers.
func secretSpans(s string) []Finding {
	spans := append(randomTokens(s), hexKeys(s)...)
	lower := strings.ToLower(s)
	var pairs bytePairs
	pairs.add(lower)
	for _, r := range secretRules() {
		if !pairs.holdsAny(lower, r.hints) {
			continue
		}
		if r.line {
			spans = r.findLines(s, spans)
			continue
		}
		spans = r.find(s, 0, spans)
	}
	return mergeSpans(append(spans, gitleaksSpans(s, lower, &pairs)...))
}

// findLines appends the findings of r on each line of s that holds one of
// its hints.
func (r *secretRule) findLines(s string, spans []Finding) []Finding {
	for at := 0; at < len(s); {
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		if line := s[at:end]; containsAny(strings.ToLower(line), r.hints) {
			spans = r.find(line, at, spans)
		}
		at = end + 1
	}
	return spans
}

// find appends the findings of r in text, which starts at offset in the
// screened text.
func (r *secretRule) find(s string, offset int, spans []Finding) []Finding {
	for _, m := range r.regexp().FindAllStringSubmatchIndex(s, -1) {
		lo, hi := m[2*r.group], m[2*r.group+1]
		if lo < 0 || lo == hi {
			continue
		}
		if r.vet != nil {
			var ok bool
			if lo, hi, ok = r.vet(s, m, lo, hi); !ok {
				continue
			}
		}
		// A value up to a space may run into the bracket that closes
		// around it: "[tool bash: … --password X]".
		for _, pair := range []string{"[]", "()"} {
			if hi-lo > 1 && s[hi-1] == pair[1] && !strings.Contains(s[lo:hi], pair[:1]) {
				hi--
			}
		}
		spans = append(spans, Finding{Kind: r.name, Start: offset + lo, End: offset + hi})
	}
	return spans
}

// mergeSpans sorts spans and joins those that overlap.
func mergeSpans(spans []Finding) []Finding {
	if len(spans) < 2 {
		return spans
	}
	slices.SortStableFunc(spans, func(a, b Finding) int { return a.Start - b.Start })
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp.Start <= last.End {
			last.End = max(last.End, sp.End)
			if last.Kind == "random token" || last.Kind == "hex key" {
				last.Kind = sp.Kind // a named rule says better what it is
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

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
