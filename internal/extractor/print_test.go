package extractor

import (
	"bytes"
	"errors"
	"testing"

	"github.com/memoryd/memoryd/internal/transcript"
)

// A dry pass quotes what it would write, without control characters; a
// failed pass reports false; a gone session is not a failure.
func TestPrintPass(t *testing.T) {
	var b bytes.Buffer
	res := Result{Messages: 3, Sent: 2, Changes: []Change{{File: "user-tabs.md", Action: "create", Data: []byte("tabs\x1b[2J\n")}}}
	if !PrintPass(&b, "opencode/ses_1", res, nil, true, false) {
		t.Error("a pass reported as failed")
	}
	if b.String() != "opencode/ses_1: 3 new message(s), 2 sent\n  would create user-tabs.md\n    | tabs[2J\n" {
		t.Errorf("dry pass:\n%q", b.String())
	}
	b.Reset()
	if PrintPass(&b, "k", Result{}, errors.New("model down"), false, false) || b.String() != "k: failed: model down\n" {
		t.Errorf("failed pass: %q", b.String())
	}
	if !PrintPass(&b, "k", Result{}, transcript.ErrSessionGone, false, false) {
		t.Error("a gone session counted as a failure")
	}
}
