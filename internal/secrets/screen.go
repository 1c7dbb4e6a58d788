package secrets

import (
	"bytes"
	"strings"
	"unicode/utf16"
)

// AllowMarker, anywhere on a line of a file, tells the screen before a
// commit that what looks like a secret on that line is not one: a person's
// answer to a false positive. Write it where it does not show: an HTML
// comment in the body ("<!-- memoryd:allow-secret -->"), a YAML comment in
// the frontmatter ("description: … # memoryd:allow-secret"). Only Screen
// and ScreenFile honour it: redaction and the quality gate, which see text
// a model may have written, do not.
const AllowMarker = "memoryd:allow-secret"

// ScreenFile returns the secrets in a file's bytes: Screen of FileText.
func ScreenFile(data []byte) []Finding { return Screen(FileText(data)) }

// Screen returns the secrets in the text of a file, as FindSecrets does,
// leaving out those on a line that carries AllowMarker.
func Screen(text string) []Finding {
	found := FindSecrets(text)
	if len(found) == 0 || !strings.Contains(text, AllowMarker) {
		return found
	}
	allowed := map[int]bool{}
	for n, line := range strings.Split(text, "\n") {
		if strings.Contains(line, AllowMarker) {
			allowed[n+1] = true
		}
	}
	kept := found[:0]
	for _, f := range found {
		if !allowed[f.Line] {
			kept = append(kept, f)
		}
	}
	return kept
}

// FileText is the text the screen reads in a file's bytes, in any encoding
// a secret can hide in: UTF-8 (with or without a byte-order mark, or any
// other ASCII-compatible encoding), UTF-16 with a byte-order mark, and text
// with NUL bytes — UTF-16 or UTF-32 without a mark — whose ASCII
// characters, where secrets are, are kept with the NULs dropped.
func FileText(data []byte) string {
	var text string
	switch {
	case bytes.HasPrefix(data, []byte{0xef, 0xbb, 0xbf}):
		text = string(data[3:])
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		text = decodeUTF16(data[2:], false)
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		text = decodeUTF16(data[2:], true)
	default:
		text = string(data)
	}
	if strings.IndexByte(text, 0) >= 0 {
		text = strings.ReplaceAll(text, "\x00", "")
	}
	return text
}

func decodeUTF16(b []byte, bigEndian bool) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	return string(utf16.Decode(u))
}
