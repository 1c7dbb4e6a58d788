package main

import (
	"strings"
	"testing"
)

// TestSearchExplain: --explain says under each hit which words matched it,
// how, in which fields, and the parts of its score; --json carries the same.
func TestSearchExplain(t *testing.T) {
	w := newWorld(t)
	addFact(t, w, "feedback", "indent-with-tabs", "Indent with tabs", "Always use tabs in every repository.")
	out, code := w.runCmd(nil, "search", "--explain", "which tab for the repo?")
	if code != 0 || !strings.HasPrefix(out, "feedback-indent-with-tabs.md") ||
		!strings.Contains(out, "score ") || !strings.Contains(out, "× scope") ||
		!strings.Contains(out, "tab ") || !strings.Contains(out, "stem tabs in name, description, body") ||
		!strings.Contains(out, "synonym repository in body") {
		t.Fatalf("search --explain:\n%s", out)
	}
	out, _, _ = w.runCmd2(nil, "search", "--explain", "--json", "tabs")
	if !strings.Contains(out, `"explain": {`) || !strings.Contains(out, `"match": "exact"`) {
		t.Fatalf("search --explain --json:\n%s", out)
	}
	if out, _, _ = w.runCmd2(nil, "search", "--json", "tabs"); strings.Contains(out, `"explain"`) {
		t.Fatalf("search --json without --explain:\n%s", out)
	}
}
