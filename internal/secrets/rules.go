package secrets

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// This file holds memoryd's own secret rules (keys, commands, assignments)
// and how a rule finds its spans in a text.

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
