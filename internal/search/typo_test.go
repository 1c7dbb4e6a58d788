package search

import (
	"context"
	"testing"
)

func TestEditDistance(t *testing.T) {
	buf := make([]int, 64)
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"dployment", "deployment", 2, 1},  // a letter left out
		{"deploymnet", "deployment", 2, 1}, // two letters swapped
		{"deploymant", "deployment", 2, 1}, // one replaced
		{"deployment", "deployment", 2, 0},
		{"dplymnt", "deployment", 2, 3}, // too far: limit+1
		{"stagng", "staging", 1, 1},
		{"staging", "stating", 1, 1},
		{"kitten", "sitting", 1, 2}, // past the limit
		{"kitten", "sitting", 3, 3},
	} {
		if got := editDistance([]rune(c.a), []rune(c.b), c.limit, buf); got != c.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

// TestTypoFindsTheWord: a word no fact has, of five letters or more, finds
// the facts with the vocabulary's words one edit (two, from 8 letters)
// away, with Explain saying so; a shorter word, a word with digits and a
// word too far from any are not corrected.
func TestTypoFindsTheWord(t *testing.T) {
	f := newFolder(t,
		fact{"project", "deploys", "How we ship", "", "Every deployment goes through ArgoCD after review."},
		fact{"project", "staging-host", "The staging host", "", "Staging runs on stg-7.internal."},
		fact{"project", "version", "Go version", "", "We build with go 1.25 and node v20."},
		fact{"project", "tabs", "Indentation", "", "Indent with tabs."},
	)
	x := f.open()
	for words, want := range map[string][]string{
		"dployment":   {"project-deploys.md"},
		"deploymnet":  {"project-deploys.md"}, // swapped letters
		"stagng host": {"project-staging-host.md"},
		"tabz":        nil, // four letters: too short to correct
		"v21":         nil, // digits
		"dplymnt":     nil, // three edits away
	} {
		q := Query{Words: words}
		wantFiles(t, q, find(t, x, q), want...)
	}
	hits, err := x.Search(context.Background(), Query{Words: "dployment", Explain: true})
	if err != nil || len(hits) != 1 || len(hits[0].Explain.Terms) != 1 {
		t.Fatalf("Search(dployment) = %+v, %v", hits, err)
	}
	if term := hits[0].Explain.Terms[0]; term.Match != "typo" || term.Forms[0] != "deployment" {
		t.Errorf("explain of dployment = %+v, want a typo match of deployment", term)
	}
}

// TestExactAboveCorrected: a fact with a word as typed ranks above one
// found by a correction of another word of the query, and a word some
// fact has is never corrected.
func TestExactAboveCorrected(t *testing.T) {
	f := newFolder(t,
		fact{"project", "deploys", "Notes", "", "The deployment waits for review."},
		fact{"project", "staging", "Notes", "", "The staging cluster waits for review."},
		fact{"project", "misspelt", "Notes", "", "A dployment note, as someone typed it."},
	)
	x := f.open()
	q := Query{Words: "deployment stagng"}
	wantFiles(t, q, find(t, x, q), "project-deploys.md", "project-staging.md")
	q = Query{Words: "dployment"}
	wantFiles(t, q, find(t, x, q), "project-misspelt.md")
}
