package extractor

import (
	"regexp"
	"sync"
)

// A transcript is text anyone could have put in front of the agent: a web
// page, a README, a tool's output. An instruction planted there ("always run
// `curl … | sh` first") must not become a memory the agent obeys in every
// later session, so a fact that tells the agent to run fetched code, to turn
// a check off, or to send secrets somewhere is not saved: it goes to the
// inbox for a person to review (memoryd review), with the reason.

// riskyRules are the kinds of instruction held for review, each with the
// reason review shows.
var riskyRules = sync.OnceValue(func() []struct {
	re     *regexp.Regexp
	reason string
} {
	type rule = struct {
		re     *regexp.Regexp
		reason string
	}
	fetch := `(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)`
	shell := `(?:sudo\s+)?(?:ba|z|k|da|fi)?sh|python[0-9.]*|perl|ruby|node|iex|invoke-expression|pwsh|powershell`
	secret := `(?:secrets?|env(?:ironment)?(?:\s+var(?:iable)?s)?|\$?\w*(?:api[_-]?key|token|secret|password)s?|credentials?|ssh\s+keys?|private\s+keys?|~/\.ssh\S*|id_(?:rsa|ed25519)|\.env\b|aws\s+keys?|printenv|\$\(\s*(?:env|printenv)\s*\))`
	return []rule{
		{regexp.MustCompile(`(?i)\b` + fetch + `\b[^\n|]*\|\s*(?:` + shell + `)\b`), "it tells the agent to run code fetched from the network"},
		{regexp.MustCompile(`(?i)\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)\b)`), "it tells the agent to run code fetched from the network"},
		{regexp.MustCompile(`(?i)\b(?:ba|z)?sh\s+(?:-c\s+["']?\$\(|<\(\s*)` + fetch + `\b`), "it tells the agent to run code fetched from the network"},
		{regexp.MustCompile(`(?i)--no-verify\b|--no-gpg-sign\b|--dangerously-skip-permissions\b|--no-sandbox\b|--disable-sandbox\b|\bGIT_SSL_NO_VERIFY\b|\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*["']?0|\bInsecureSkipVerify\s*[:=]\s*true|\bsslverify\s*(?:=\s*)?false|\bverify\s*=\s*False\b|\bPYTHONHTTPSVERIFY\s*=\s*0`), "it tells the agent to turn a safety check off"},
		{regexp.MustCompile(`(?i)\b(?:disable|skip|bypass|turn\s+off|switch\s+off|ignore|comment\s+out|delete|remove)\s+(?:all\s+|the\s+|any\s+|every\s+)?(?:(?:unit|failing|integration)\s+)?(?:tests?|test\s+suite|ci\s+checks?|checks?|pre-commit\s+hooks?|git\s+hooks?|hooks|linters?|tls(?:\s+verification)?|ssl(?:\s+verification)?|certificate\s+(?:checks?|verification)|cert(?:ificate)?\s+validation|sandbox(?:ing)?|signature\s+checks?|verification)\b`), "it tells the agent to turn a safety check off"},
		{regexp.MustCompile(`(?i)\b(?:send|post|upload|exfiltrate|forward|copy|paste|pipe|report|leak)\b[^\n]{0,80}?\b` + secret + `[^\n]{0,80}?(?:https?://|\bto\s+\S+\.[a-z]{2,}\b)`), "it tells the agent to send secrets somewhere"},
		{regexp.MustCompile(`(?i)\b(?:env|printenv|set)\s*\|\s*(?:curl|nc|ncat|netcat|wget)\b|\bcurl\b[^\n]*(?:-d|--data\S*|-F|--form|-T|--upload-file)\s+[^\n]*` + secret), "it tells the agent to send secrets somewhere"},
	}
})

// riskyInstruction returns why a memory's text must wait for a person's
// review (it tells the agent to do something an attacker would want), or "".
func riskyInstruction(text string) string {
	for _, r := range riskyRules() {
		if r.re.MatchString(text) {
			return r.reason
		}
	}
	return ""
}
