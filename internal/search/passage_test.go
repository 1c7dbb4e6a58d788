package search

import (
	"context"
	"strings"
	"testing"
)

// TestBestPassage: a body's best window is the one where the query's
// words are together, scored with no regard for the rest of the body.
func TestBestPassage(t *testing.T) {
	forms := map[string][]passageForm{
		"staging": {{word: 0, weight: 2, factor: 1}},
		"host":    {{word: 1, weight: 1, factor: 1}},
		"hosts":   {{word: 1, weight: 1, factor: stemFactor}},
	}
	filler := strings.Repeat("nothing to see here at all today ", 20)
	together := bestPassage(filler+" the staging host is stg-7 "+filler, forms, 2)
	apart := bestPassage("staging "+filler+filler+" hosts", forms, 2)
	want := 2*(k1+1)/(k1+1) + 1*(k1+1)/(k1+1)
	if together < want-1e-9 || together > want+1e-9 {
		t.Errorf("bestPassage with the words together = %.3f, want %.3f", together, want)
	}
	if apart >= together || apart <= 0 {
		t.Errorf("bestPassage with the words far apart = %.3f, want less than %.3f and more than 0", apart, together)
	}
	if got := bestPassage(filler, forms, 2); got != 0 {
		t.Errorf("bestPassage without the words = %.3f", got)
	}
}

// TestPassageScoring: with passageWeight set, a long fact's best passage
// is added to its score and shown by Explain; a short fact's is not.
func TestPassageScoring(t *testing.T) {
	saved := passageWeight
	passageWeight = 1
	defer func() { passageWeight = saved }()
	filler := strings.Repeat("nothing to see here at all today. ", 30)
	f := newFolder(t,
		fact{"project", "long-note", "Notes", "", filler + "\n\nThe staging host is stg-7.\n\n" + filler},
		fact{"project", "short-note", "Notes", "", "The staging host is stg-7."},
	)
	x := f.open()
	hits, err := x.Search(context.Background(), Query{Words: "staging host", Explain: true})
	if err != nil || len(hits) != 2 {
		t.Fatalf("Search = %+v, %v", hits, err)
	}
	for _, h := range hits {
		long := h.File == "project-long-note.md"
		if got := h.Explain.Passage; long != (got > 0) {
			t.Errorf("%s: passage %.3f", h.File, got)
		}
	}
}
