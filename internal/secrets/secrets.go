// Package secrets finds secrets — API keys, tokens, private keys, passwords — in text: one
// detector for redacting transcripts before they are sent to a model, for the gate that keeps
// them out of memory files, and for the scan of staged files before every commit.
package secrets

import (
	"strings"
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
