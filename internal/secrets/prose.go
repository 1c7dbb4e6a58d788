package secrets

import (
	"strings"
)

// Secrets written as sentences, the part no maintained rule set covers: a
// person telling a note the router's password, a PIN, a TOTP seed or
// recovery codes, in English, German, French, Spanish, Portuguese, Dutch,
// Russian and a few more. The value must look made (a digit or a symbol in
// it, checked by the expression itself so that "the password for the box
// is on the fridge" does not stop the search at "on"), and madeValue vets
// it further; words about the password ("policy", "length", "reset")
// between the label and the value make the sentence one about passwords,
// not one holding a password.

// proseValue is a value that may be a made secret: quoted, or a run with a
// digit or a symbol in it.
const proseValue = `("[^"\n]{3,}"|'[^'\n]{3,}'|[^\s"'` + "`" + `]*[0-9!#$%&*+=?@^~§€][^\s"'` + "`" + `]*)`

// passwordLabels name a password, a PIN or a wifi key, in the languages
// the sentence rules read, with the ending of a definite form
// ("lösenordet", "adgangskoden"). Group 1 of the sentence rule.
const passwordLabels = `(password|passwort|kennwort|passwd|passphrase|passcode|pass phrase|pw|pwd|mot de passe|contraseña|contrasena|clave|senha|wachtwoord|hasło|haslo|lösenord|losenord|salasana|passord|adgangskode|parola|пароль|пин|pin|pin-code|pin code|puk|` +
	`(?:alarm|door|gate|safe|garage|entry|access|lock|unlock|keypad|tür|tor|alarme|porte)[ -]?code|türcode|alarmcode|` +
	`(?:wi-?fi|wlan|wpa[23]?(?:-psk)?|network|netzwerk|router)[ -]?(?:key|schlüssel|clé|clave|chave|passphrase)|wpa[23]?|psk)(?:et|en|n)?`

// copulas join a label to its value: "is", "ist", "lautet", "est", "es",
// "é", "è", "är", "er", "on", "to", "jest", "—", a colon, an equals sign.
// "on" and "to" are English words too: the value must still look made, so
// "the password on the router is X" goes on to the "is".
const copulas = `(\s*[:=：]\s*|\s+(?:is|was|ist|war|lautet|est|était|es|era|é|è|är|er|on|to|jest|это|—|–)\s+)`

// proseRules are compiled with the others, on the first screen.
func proseRules() []*secretRule {
	rules := []*secretRule{
		{
			// "Das Passwort für den Router ist X", "PIN for the door: 4821",
			// "WiFi WPA2 key: X", "pw for grafana is X", "Пароль от роутера — X".
			name: "password", hints: []string{"pass", "pw", "pin", "пин", "puk", "code", "wachtwoord", "kennwort", "adgangskode", "losenord", "contrase", "clave", "senha", "hasło", "haslo", "lösenord", "salasana", "parola", "пароль", "key", "schlüssel", "clé", "chave", "wpa", "psk"},
			expr:  (`(?i)(?:^|[^\p{L}\p{N}_])` + passwordLabels + `((?:[^\p{L}\p{N}\n.!?;:=：][^\n.!?;:=：]{0,39}?)?)` + copulas + proseValue),
			group: 4, vet: vetSentence,
		},
		{
			// "SIM PIN 4821", "PUK 12345678": a PIN's digits right after it.
			name: "PIN", hints: []string{"pin", "puk"},
			expr: (`(?i)\b(?:sim[ -]?)?(?:pin|puk)(?:[ -]?code)?\s+(\d{4,12})\b`), group: 1,
		},
		{
			// "SSH into nas01 as admin with X", "log in as ana using the password X".
			name: "login password", hints: []string{"ssh", "log", "sign", "connect", "auth", "anmeld"},
			expr: (`(?i)\b(?:ssh|log ?in|logged in|login|sign ?in|signed in|connect|connected|auth(?:enticate)?|anmelden|meld dich an)\b[^\n]{0,40}?\s(?:as|als|en tant que|como)\s+\S+\s+` +
				`(?:with|using|mit|avec|con|com)\s+(?:(?:the\s+|das\s+|le\s+)?(?:password|pw|pass|passwort|mot de passe)\s+)?` + proseValue),
			group: 1, vet: vetValue(madeValue),
		},
		{
			// "Login with admin / X", "log in as root:X", "creds: admin/X".
			name: "login password", hints: []string{"log", "sign", "cred", "zugangsdaten", "anmeldedaten", "identifiants", "user/pass", "username/password"},
			expr: (`(?i)\b(?:log ?in|login|logged in|sign ?in|creds|credentials|zugangsdaten|anmeldedaten|identifiants|credenciales|user/pass(?:word)?|username/password)\b[^\n]{0,30}?[\s:]` +
				`[\p{L}\w.@-]*\p{L}[\p{L}\w.@-]*\s*[/:]\s*([^\s/"'` + "`" + `]*[0-9!#$%&*+=?@^~§€][^\s/"'` + "`" + `]*)`),
			group: 1, vet: vetValue(madeValue),
		},
		{
			// "Use X as the password for the NAS".
			name: "password", hints: []string{" as "},
			expr: (`(?i)\b(?:use|used|set|type|enter|nimm|benutze|utilise|usa)\s+` + proseValue +
				`\s+(?:as|als|comme|como)\s+(?:the\s+|a\s+|das\s+|le\s+|la\s+|el\s+)?(?:password|passwort|pw|passphrase|pin|mot de passe|contraseña)\b`),
			group: 1, vet: vetValue(madeValue),
		},
		{
			// "TOTP seed JBSWY3DPEHPK3PXP", "2FA secret: JBSW Y3DP EHPK 3PXP".
			name: "OTP secret", hints: []string{"totp", "2fa", "mfa", "otp", "authenticator", "two-factor", "2-factor", "zwei-faktor"},
			expr: (`(?i)\b(?:totp|2fa|mfa|otp|authenticator|two-factor|2-factor|zwei-faktor)\b[^\n]{0,25}?\b(?:seed|secret|key|code|schlüssel|geheimnis|clé|clave)\b` +
				`\s*(?:is|ist|est|es|[:=])?\s*((?:[A-Z2-7]{4}[ -]?){3,}[A-Z2-7]{2,}=*)`),
			group: 1, vet: vetValue(base32Secret),
		},
		{
			// "GitHub recovery codes: 5757-01d8 9751-00a5", "backup code 7340-c4e8".
			name: "recovery code", hints: []string{"code", "recovery", "backup"},
			expr: (`(?i)\b(?:recovery|backup|rescue|scratch|emergency|wiederherstellungs|sicherungs|secours|récupération|recuperación)[ -]?(?:codes?|keys?|schlüssel)\b` +
				`\s*(?:(?:are|is|sind|ist|sont|est|son|es)\s+|[:=]\s*)?((?:[A-Za-z0-9]{4,}(?:-[A-Za-z0-9]{4,})*[ ,;]*)+)`),
			group: 1, vet: vetCodes,
		},
		{
			// "seed phrase: abandon ability able about …": twelve words or more.
			name: "seed phrase", hints: []string{"phrase", "mnemonic", "words"},
			expr:  (`(?i)\b(?:seed|recovery|mnemonic|backup|wallet)[ -]?(?:phrase|words)\b\s*(?:is|are|[:=])?\s*((?:[a-z]{3,8}[ ,]+){11,}[a-z]{3,8})`),
			group: 1, vet: vetSeedPhrase,
		},
	}
	for i := range rules {
		rules[i].line = true
	}
	return rules
}

// aboutPassword are words between a label and a value that make the
// sentence about passwords rather than one holding a password.
var aboutPassword = wordList(`policy policies length rule rules rotation rotated reset expiry expires expired expiration manager hint hints field fields
	prompt change changed changes hash hashed hashing requirement requirements complexity strength minimum maximum min max format protected
	protection recovery reuse history attempts attempt limit lockout age generator prompt strategy
	richtlinie länge regel regeln politique longueur règle política longitud regla`)

// vetSentence vets a password told in a sentence: no word about passwords
// between the label (m[2:4]) and the copula, and a value that looks made
// (madeValue; a PIN's digits, 4 to 12, or a password's, 6 or more).
func vetSentence(s string, m []int, lo, hi int) (int, int, bool) {
	label := strings.ToLower(s[m[2]:m[3]])
	gap := strings.FieldsFunc(strings.ToLower(s[m[4]:m[5]]), notAlnum)
	if len(gap) > 0 && (label == "pin" || label == "pw") && verbObjects[gap[0]] {
		return lo, hi, false // "Pin the base image by digest sha256:…": a verb
	}
	for _, w := range gap {
		if aboutPassword[w] || hashWords[w] {
			return lo, hi, false
		}
	}
	v := strings.TrimRight(unquote(s[lo:hi]), ".,;:!?)")
	if v != "" && strings.Trim(v, "0123456789") == "" {
		pinLike := strings.Contains(label, "pin") || strings.Contains(label, "пин") || strings.Contains(label, "puk") || strings.Contains(label, "code")
		return lo, hi, len(v) <= 12 && (pinLike && len(v) >= 4 || len(v) >= 6)
	}
	return lo, hi, madeValue(s[lo:hi])
}

// verbObjects start the object of "pin" the verb: "pin the version", "pin it".
var verbObjects = wordList("the a an it its this that these those them all every each your our my to down")

// notMade are values with a digit or a symbol that are names, not secrets:
// key types and sign-in methods ("log in as git with ed25519 keys").
var notMade = lazyRegexp(`(?i)^(?:ed25519|ed448|rsa\d*|ecdsa\S*|dsa|x509|sha\d+|2fa|mfa|oauth2?|saml2?|fido2|u2f|webauthn|yubikey\d*|pkcs\d+)$`)

// plainNumber is a value with digits and separators only: a date, a time,
// a version, an address, a size ("2026-11-27", "10:30", "1.2.3", "10.0.0.1").
var plainNumber = lazyRegexp(`^v?[\d.:/,_-]+[a-z]{0,2}$`)

// madeValue vets a value told in prose: quoted (and 3 characters or more),
// or 6 characters or more with a letter and a digit or a symbol, and not a
// placeholder, a path, a URL, a number with separators, a key type, an
// e-mail address or a host and port.
func madeValue(value string) bool {
	q := unquote(value)
	v := strings.TrimRight(q, ".,;:!?)")
	if !notPlaceholder(v) || pathLike(v) || strings.Contains(v, "://") || plainNumber().MatchString(strings.ToLower(v)) || notMade().MatchString(v) {
		return false
	}
	l := strings.ToLower(v)
	if settingWords[l] || proseWords[l] || pointerWords[l] || localPointers[l] || passwordStores[l] || hostPort().MatchString(v) || email().MatchString(v) {
		return false
	}
	if q != value {
		// "Mot de passe :" and "Passwort:": quotes around a label's end, no value.
		return len(v) >= 3 && strings.TrimSpace(q) == q
	}
	k := kinds(v)
	return len(v) >= 6 && (k.lower || k.upper) && (k.digit || k.symbol)
}

var (
	hostPort = lazyRegexp(`^[\w.-]+:\d{1,5}$`)
	email    = lazyRegexp(`^[\w.+-]+@[\w-]+\.[\w.-]+$`)
)

// base32Secret vets a TOTP seed: 16 base32 characters or more once the
// spaces and dashes that group them are gone, with a digit (2 to 7) or all
// in capitals, so that a run of words in prose is not taken for one.
func base32Secret(s string) bool {
	v := strings.TrimRight(strings.NewReplacer(" ", "", "-", "").Replace(s), "=")
	return len(v) >= 16 && (strings.ContainsAny(v, "234567") || strings.ToUpper(v) == v)
}

// vetCodes vets recovery codes: one of them 8 characters or more (dashes
// left out) with a digit and a letter or 8 digits; the span runs to the
// last code.
func vetCodes(s string, _ []int, lo, hi int) (int, int, bool) {
	v := strings.TrimRight(s[lo:hi], " ,;")
	for _, code := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }) {
		c := strings.ReplaceAll(code, "-", "")
		if k := kinds(c); len(c) >= 8 && k.digit {
			return lo, lo + len(v), true
		}
	}
	return lo, hi, false
}

// vetSeedPhrase vets a wallet's seed phrase: words that are not prose (a
// few of the list's words are: "about", "above"), three at most.
func vetSeedPhrase(s string, _ []int, lo, hi int) (int, int, bool) {
	prose := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(s[lo:hi]), notAlnum) {
		if proseWords[w] || pointerWords[w] {
			prose++
		}
	}
	return lo, hi, prose <= 3
}
