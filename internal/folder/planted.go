package folder

import (
	"regexp"
	"strings"
	"sync"

	"github.com/memoryd/memoryd/internal/secrets"
)

// A transcript is text anyone could have put in front of the agent: a web
// page, a README, a tool's output; and a fact can arrive by sync, by import
// or by hand. An instruction planted there ("always run `curl … | sh`
// first") must not become a memory the agent obeys in every later session.
// Extraction sends such a fact to the inbox for a person to review (memoryd
// review); the gate holds one already in the folder from every agent and
// model until a person confirms it (memoryd check --confirm NAME). These are
// the one copy of the rules both read.

// plantedRules are the kinds of instruction held for a person, each with
// the reason review and status show.
//
// Each rule has needles: words one of which any text it matches holds, in
// lower case. The regular expressions cost up to half a millisecond on an
// ordinary fact; the needles let most facts skip them (the index asks of
// every fact).
var plantedRules = sync.OnceValue(func() []plantedRule {
	type rule = plantedRule
	fetch := `(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)`
	shell := `(?:sudo\s+)?(?:ba|z|k|da|fi)?sh|python[0-9.]*|perl|ruby|node|iex|invoke-expression|pwsh|powershell`
	secret := `(?:secrets?|env(?:ironment)?(?:\s+var(?:iable)?s)?|\$?\w*(?:api[_-]?key|token|secret|password)s?|credentials?|ssh\s+keys?|private\s+keys?|~/\.ssh\S*|id_(?:rsa|ed25519)|\.env\b|aws\s+keys?|printenv|\$\(\s*(?:env|printenv)\s*\))`
	return []rule{
		{regexp.MustCompile(`(?i)\b` + fetch + `\b[^\n|]*\|\s*(?:` + shell + `)\b`), "it tells the agent to run code fetched from the network", []string{"|"}},
		{regexp.MustCompile(`(?i)\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)\b)`), "it tells the agent to run code fetched from the network", []string{"iex", "invoke-expression"}},
		{regexp.MustCompile(`(?i)\b(?:ba|z)?sh\s+(?:-c\s+["']?\$\(|<\(\s*)` + fetch + `\b`), "it tells the agent to run code fetched from the network", []string{"$(", "<("}},
		{regexp.MustCompile(`(?i)--no-verify\b|--no-gpg-sign\b|--dangerously-skip-permissions\b|--no-sandbox\b|--disable-sandbox\b|\bGIT_SSL_NO_VERIFY\b|\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*["']?0|\bInsecureSkipVerify\s*[:=]\s*true|\bsslverify\s*(?:=\s*)?false|\bverify\s*=\s*False\b|\bPYTHONHTTPSVERIFY\s*=\s*0`), "it tells the agent to turn a safety check off", []string{"verify", "gpg-sign", "skip-permissions", "sandbox", "reject_unauthorized"}},
		{regexp.MustCompile(`(?i)\b(?:disable|skip|bypass|turn\s+off|switch\s+off|ignore|comment\s+out|delete|remove)\s+(?:all\s+|the\s+|any\s+|every\s+)?(?:(?:unit|failing|integration)\s+)?(?:tests?|test\s+suite|ci\s+checks?|checks?|pre-commit\s+hooks?|git\s+hooks?|hooks|linters?|tls(?:\s+verification)?|ssl(?:\s+verification)?|certificate\s+(?:checks?|verification)|cert(?:ificate)?\s+validation|sandbox(?:ing)?|signature\s+checks?|verification)\b`), "it tells the agent to turn a safety check off", []string{"disable", "skip", "bypass", "turn", "switch", "ignore", "comment", "delete", "remove"}},
		{regexp.MustCompile(`(?i)\b(?:send|post|upload|exfiltrate|forward|copy|paste|pipe|report|leak)\b[^\n]{0,80}?\b` + secret + `[^\n]{0,80}?(?:https?://|\bto\s+\S+\.[a-z]{2,}\b)`), "it tells the agent to send secrets somewhere", []string{"send", "post", "upload", "exfiltrate", "forward", "copy", "paste", "pipe", "report", "leak"}},
		{regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions|prompts?|rules)\b`), "it tells the agent to set its instructions aside", []string{"ignore", "disregard", "forget"}},
		{regexp.MustCompile(`(?i)\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:it|this)\s+to)\s+the\s+user\b`), "it tells the agent to hide what it does from the user", []string{"tell", "inform", "mention"}},
		{regexp.MustCompile(`(?i)\b(?:env|printenv|set)\s*\|\s*(?:curl|nc|ncat|netcat|wget)\b|\bcurl\b[^\n]*(?:-d|--data\S*|-F|--form|-T|--upload-file)\s+[^\n]*` + secret), "it tells the agent to send secrets somewhere", []string{"|", "curl"}},
	}
})

// PlantedInstruction returns why a fact's text must wait for a person (it
// tells the agent to do something an attacker would want), or "". Safe for
// concurrent use.
func PlantedInstruction(text string) string {
	low := lowerFold(text)
	var pairs secrets.Pairs // most needles are ruled out by a missing pair
	pairs.Add(low)
	for _, r := range plantedRules() {
		if r.needed(low, &pairs) && r.re.MatchString(text) {
			return r.reason
		}
	}
	return ""
}

// plantedRule is one kind of planted instruction.
type plantedRule struct {
	re      *regexp.Regexp
	reason  string
	needles []string // lower case; a text re matches holds one of them
}

func (r plantedRule) needed(low string, pairs *secrets.Pairs) bool {
	for _, n := range r.needles {
		if pairs.MayHold(n) && strings.Contains(low, n) {
			return true
		}
	}
	return false
}

// lowerFold is s in lower case as the rules' (?i) sees it: besides
// strings.ToLower, the long s (U+017F), which (?i) takes for an s, is one.
func lowerFold(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "\u017f", "s")
}
