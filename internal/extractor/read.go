package extractor

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/transcript"
)

// pageSize is how many messages one Messages call returns while a pass
// looks for the newest ones.
const pageSize = 256

// maxMessageChars bounds one message in the transcript the model reads; a
// longer one keeps its start and its end.
const maxMessageChars = 6000

// batch is what one pass read of a session.
type batch struct {
	msgs  []transcript.Message // the newest messages after the watermark, oldest first
	total int                  // messages after the watermark, including those cut
	mark  transcript.Watermark // the newest message's mark: the next pass starts after it
}

// readNew reads every settled message after the watermark, page by page,
// keeping the newest keep of them.
func readNew(ctx context.Context, src transcript.Source, id string, after transcript.Watermark, keep int) (batch, error) {
	var b batch
	for {
		page, err := src.Messages(ctx, id, after, pageSize)
		if err != nil {
			return batch{}, err
		}
		b.total += len(page)
		b.msgs = append(b.msgs, page...)
		if n := len(b.msgs); n > keep {
			b.msgs = append(b.msgs[:0:0], b.msgs[n-keep:]...)
		}
		if len(page) == 0 {
			return b, nil
		}
		b.mark = page[len(page)-1].Mark
		after = b.mark
		if len(page) < pageSize {
			return b, nil
		}
	}
}

// dontRemember finds a request not to keep something: "don't remember
// this", "do not save that", "forget what I said", "off the record", "不要记".
var dontRemember = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:don'?t|do not|never|no need to)\s+(?:remember|memori[sz]e|save|store|record|keep|note|write down|add)\s+(?:this|that|it|these|those|any of (?:this|that|it))\b` +
		`|\b(?:don'?t|do not|never|no need to)\s+(?:remember|memori[sz]e)\b` +
		`|\bnot to (?:remember|memori[sz]e|save|store|record)\b` +
		`|\bforget (?:this|that|it|what i (?:just )?(?:said|told you|wrote))\b` +
		`|\boff the record\b|不要记|别记|不用记|不必记|不要保存|别保存`)
})

// dontRememberHints are the words every dontRemember match holds: a cheap
// pre-check that spares most messages the regexp.
var dontRememberHints = []string{"don't", "dont", "do not", "never", "no need", "not to", "forget", "off the record",
	"不要", "别记", "不用", "不必", "别保存"}

// asksNotToRemember reports whether a user message asks that something not
// be remembered. "Don't forget …" is the opposite and does not count.
func asksNotToRemember(text string) bool {
	s := strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(text)
	lower := strings.ToLower(s)
	if !slices.ContainsFunc(dontRememberHints, func(h string) bool { return strings.Contains(lower, h) }) {
		return false
	}
	for _, m := range dontRemember().FindAllStringIndex(s, -1) {
		if strings.HasPrefix(strings.ToLower(s[m[0]:]), "forget") {
			before := strings.ToLower(strings.TrimSpace(s[:m[0]]))
			if strings.HasSuffix(before, "don't") || strings.HasSuffix(before, "dont") ||
				strings.HasSuffix(before, "do not") || strings.HasSuffix(before, "never") {
				continue
			}
		}
		return true
	}
	return false
}

// rendered is the transcript as the model reads it.
type rendered struct {
	text      string
	shown     int // messages shown
	userShown int // user messages shown with their text (not withheld, not summaries)
	redacted  int // secrets replaced
	withheld  int // messages withheld because the user asked
}

// renderTranscript writes messages as role-labelled blocks, with secrets
// redacted and messages the user asked not to keep withheld (the request
// and the assistant's messages up to the next user message). The newest
// blocks are kept within maxChars; a newest block longer than that alone is
// cut.
func renderTranscript(msgs []transcript.Message, maxChars int) rendered {
	var r rendered
	blocks := make([]string, len(msgs))
	userText := make([]bool, len(msgs))
	hold := false
	for i, m := range msgs {
		if m.Role == "user" && !m.Summary {
			hold = asksNotToRemember(m.Text)
		}
		if hold {
			r.withheld++
			blocks[i] = "[" + m.Role + "] (withheld: the user asked not to remember this)"
			continue
		}
		text, n := block(m)
		r.redacted += n
		blocks[i] = text
		userText[i] = m.Role == "user" && !m.Summary && strings.TrimSpace(m.Text) != ""
	}
	used, first := 0, len(blocks)
	for i := len(blocks) - 1; i >= 0; i-- {
		need := len(blocks[i]) + 2
		if used+need > maxChars {
			if i == len(blocks)-1 {
				blocks[i] = clip(blocks[i], maxChars-2)
				used, first = len(blocks[i])+2, i
			}
			break
		}
		used += need
		first = i
	}
	var b strings.Builder
	if first > 0 {
		fmt.Fprintf(&b, "[%d earlier messages not shown]\n\n", first)
	}
	for i := first; i < len(blocks); i++ {
		b.WriteString(blocks[i])
		b.WriteString("\n\n")
		r.shown++
		if userText[i] {
			r.userShown++
		}
	}
	r.text = b.String()
	return r
}

// block renders one message: "[user] …", "[assistant] …" with a
// "[tool bash: ls -la]" line per tool call, or a summary marked as context.
// Secrets are redacted from the text and each tool input before anything
// is cut, so that a cut cannot leave part of a secret unrecognised. It
// returns how many it redacted.
func block(m transcript.Message) (string, int) {
	var b strings.Builder
	label := m.Role
	if m.Summary {
		label = "summary of earlier turns, context only"
	}
	b.WriteString("[" + label + "]")
	redacted := 0
	if t := strings.TrimSpace(m.Text); t != "" {
		t, n := secrets.Redact(t)
		redacted += n
		b.WriteString(" ")
		b.WriteString(cutMiddle(t, maxMessageChars))
	}
	for _, tu := range m.Tools {
		b.WriteString("\n[tool " + tu.Name)
		in, n := secrets.Redact(tu.Input)
		redacted += n
		if in = oneLine(in); in != "" {
			b.WriteString(": " + in)
		}
		b.WriteString("]")
	}
	return b.String(), redacted
}

// cutMiddle keeps the start and the end of a text longer than n bytes.
func cutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "\n[… cut …]\n"
	head := clip(s, n*2/3)
	tail := s[len(s)-(n-len(head)-len(mark)):]
	for len(tail) > 0 && tail[0]&0xC0 == 0x80 {
		tail = tail[1:]
	}
	return strings.TrimSuffix(head, "…") + mark + tail
}
