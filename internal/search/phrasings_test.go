package search

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestPhrasingsFused: a fact that the first phrasing's words miss and
// another's find is found, one list, each fact once; a fact both find
// ranks first; phrasings without words are skipped, and none with words
// is ErrNoWords.
func TestPhrasingsFused(t *testing.T) {
	f := newFolder(t,
		fact{"project", "stg-box", "The pre-release box", "", "Its host name is stg-7.internal; reach it through the bastion."},
		fact{"project", "prod-deploys", "Production deploys", "", "Deploy to production with ArgoCD; the server is picked by the rollout."},
		fact{"project", "staging-deploys", "Staging deploys", "", "Deploy staging from the host ci-3 with make ship."},
	)
	x := f.open()
	first := "which server do we deploy staging to"
	alone := find(t, x, Query{Words: first})
	if slices.Contains(alone, "project-stg-box.md") {
		t.Fatalf("Search(%q) = %q: the first phrasing alone should miss the stg box", first, alone)
	}
	q := Query{Words: first, Phrasings: []string{"staging host", " "}}
	got := find(t, x, q)
	if len(got) != 3 || got[0] != "project-staging-deploys.md" || !slices.Contains(got, "project-stg-box.md") {
		t.Errorf("Search(%q + %q) = %q, want all three once, the staging deploys first", first, q.Phrasings, got)
	}
	if got := find(t, x, Query{Words: "", Phrasings: []string{"staging host"}}); !slices.Contains(got, "project-stg-box.md") {
		t.Errorf("Search of a phrasing without Words = %q", got)
	}
	if _, err := x.Search(context.Background(), Query{Words: "?", Phrasings: []string{" ", "!"}}); !errors.Is(err, ErrNoWords) {
		t.Errorf("Search of phrasings without words: %v, want ErrNoWords", err)
	}
}

func TestFirstSentence(t *testing.T) {
	for body, want := range map[string]string{
		"Use tabs. Always.":         "Use tabs.",
		"  Port 8080 is v1.2 here!": "Port 8080 is v1.2 here!",
		"One line\n\nThen more.":    "One line",
		"No end":                    "No end",
		"Is it? Yes.":               "Is it?",
	} {
		if got := firstSentence(body); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", body, got, want)
		}
	}
}
