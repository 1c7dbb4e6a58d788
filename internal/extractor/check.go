package extractor

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/secrets"
)

// The quality gate: what a proposed memory must not be, whatever the model
// thought. Each check returns the reason for a rejection, or "".

// minWeight is the least canonical text a body must hold: a letter or digit
// counts 1, a CJK character 2 (it carries a word's meaning). "Uses vim." is
// too short to be a fact worth a file.
const minWeight = 16

// The patterns are compiled on first use, not at every memoryd start.
//
// errorMarkers are signs of a raw error or a stack trace anywhere in a text.
var errorMarkers = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)Traceback \(most recent call last\)|^\s*panic: |goroutine \d+ \[[a-z ]+\]:|^\s*Exception in thread |^\s*fatal error: |npm ERR!|Segmentation fault|core dumped|^\s*(?:[\w$]+\.)*[A-Z]\w*(?:Error|Exception): \S|^\s*(?:Error|error(?:\[E\d+\])?): |^\s*fatal: |^\s*FAIL\s`)
})

// stackFrame matches one line of a stack trace (Java/JS "at …(file:line)",
// Python "File "…", line N", Go "file.go:N +0x…", gdb "#N 0x…").
var stackFrame = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:at\s+\S+.*[:(]\S*\d+(?::\d+)?\)?\s*$|File ".+", line \d+|\S+\.\w+:\d+ \+0x[0-9a-f]+|#\d+\s+0x[0-9a-f]+)`)
})

// commitHash matches a full object name, or a short one named as such.
var commitHash = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b[0-9a-f]{40}\b|\b[0-9a-f]{64}\b|\b(?:commit|sha|sha1|hash|revision|rev)\b[\s:#=]*\b[0-9a-f]{7,12}\b`)
})

// fileExt is a file name with a source or config extension.
var fileExt = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\w.-]+\.(?:go|py|ts|tsx|js|jsx|mjs|cjs|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|m|scala|sh|bash|zsh|ps1|md|json|jsonl|yaml|yml|toml|ini|cfg|conf|lock|sql|css|scss|html|xml|txt|log|env|mod|sum|gradle|proto|tf)$`)
})

// rejectText returns why a memory's text (name, description and body
// joined) fails the gate, or "".
func rejectText(text, body string) string {
	switch {
	case secrets.HasSecret(text):
		return "contains a secret"
	case errorMarkers().MatchString(body) || len(stackFrame().FindAllStringIndex(body, 3)) >= 2:
		return "a raw error or stack trace"
	case commitHash().MatchString(text):
		return "contains a commit hash"
	case pathHeavy(body):
		return "mostly file paths"
	case weight(index.Canonical(body)) < minWeight:
		return "too short to be a durable fact"
	}
	return ""
}

// pathHeavy reports a text made mostly of file paths: at least a third of
// its words when there are three or more paths, or anything with a path and
// fewer than four other words.
func pathHeavy(s string) bool {
	words := strings.Fields(s)
	paths := 0
	for _, w := range words {
		if isPath(w) {
			paths++
		}
	}
	if paths == 0 {
		return false
	}
	return (paths >= 3 && 3*paths >= len(words)) || len(words)-paths < 4
}

// isPath reports whether a word is a file path or file name (URLs are not).
func isPath(w string) bool {
	w = strings.Trim(w, "`'\"()[]{}<>,;:!?*")
	w = strings.TrimSuffix(w, ".")
	if w == "" || strings.Contains(w, "://") || strings.HasPrefix(w, "[[") {
		return false
	}
	switch {
	case strings.HasPrefix(w, "/") && len(w) > 1,
		strings.HasPrefix(w, "~/"), strings.HasPrefix(w, "./"), strings.HasPrefix(w, "../"),
		len(w) > 2 && w[1] == ':' && (w[2] == '\\' || w[2] == '/'):
		return true
	case strings.Count(w, "/") >= 2 || strings.Count(w, "\\") >= 2:
		return true
	}
	base := w[strings.LastIndexAny(w, `/\`)+1:]
	return fileExt().MatchString(base)
}

// weight is the amount of text in a canonical string (see minWeight).
func weight(canon string) int {
	n := 0
	for _, r := range canon {
		switch {
		case r == ' ':
		case r >= 0x2E80: // CJK and other ideographic scripts
			n += 2
		default:
			n++
		}
	}
	return n
}

// safeName turns what the model proposed into a memory name that passes
// index.ValidName: lower-case ASCII letters and digits joined by single
// hyphens, at most 64 characters, without the "<type>-" prefix or ".md"
// suffix a model may repeat. When nothing is left (a name in another
// script), the description is tried, then a stable name made from the body's
// canonical text, so that a re-run of the same pass picks the same file.
func safeName(name, typ, description, body string) string {
	clean := func(s string) string {
		s = slug(strings.TrimSuffix(strings.TrimSpace(s), ".md"))
		if typ != "" {
			if rest, ok := strings.CutPrefix(s, typ+"-"); ok && rest != "" {
				s = rest
			}
		}
		return s
	}
	if s := clean(name); index.ValidName(s) {
		return s
	}
	if s := clean(firstWords(description, 6)); index.ValidName(s) {
		return s
	}
	sum := sha256.Sum256([]byte(index.Canonical(body)))
	return "note-" + hex.EncodeToString(sum[:4])
}

// slug lower-cases s, keeps ASCII letters and digits, turns every other run
// into one hyphen and cuts the result to 64 characters at a hyphen.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > 64 {
		out = out[:64]
		if i := strings.LastIndexByte(out, '-'); i > 0 {
			out = out[:i]
		}
		out = strings.Trim(out, "-")
	}
	return out
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// oneLine joins the lines of s with single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstLine is the first non-blank line of s, cut to 160 bytes.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return clip(t, 160)
		}
	}
	return ""
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace) + "…"
}
