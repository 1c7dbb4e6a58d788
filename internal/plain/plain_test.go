package plain

import (
	"bytes"
	"testing"
)

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain line\n\tindented": "plain line\n\tindented",
		"\x1b[2Jcleared":         "[2Jcleared",
		"bell\a and \u009bcsi":   "bell and csi",
		"\x1b]0;title\x07done":   "]0;titledone",
		"ünïcode stays":          "ünïcode stays",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	if n, err := (Writer{W: &b}).Write([]byte("a\x1bb\n")); err != nil || n != 4 || b.String() != "ab\n" {
		t.Errorf("Writer: %d, %v, %q", n, err, b.String())
	}
}
