package search

import (
	"context"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/thesaurus"
)

// needThesaurus skips (fails in CI) a test that needs the system's
// WordNet.
func needThesaurus(t testing.TB) {
	t.Helper()
	if thesaurusOf() == nil {
		needtool.Missing(t, "WordNet", "not in $WNSEARCHDIR nor "+strings.Join(thesaurus.Dirs, ", "),
			"apt-get install wordnet-base (.ci/run does)")
	}
}

// noThesaurus takes the thesaurus away until the returned func is called.
func noThesaurus() (restore func()) {
	saved := thesaurusOf
	thesaurusOf = func() *thesaurus.Thesaurus { return nil }
	return func() { thesaurusOf = saved }
}

// TestRelatedWords finds a fact by the words the thesaurus relates to a
// query's word no fact has, not when a fact has the word, and takes a word
// the thesaurus knows for no typo.
func TestRelatedWords(t *testing.T) {
	needThesaurus(t)
	f := newFolder(t)
	coriander := f.write(fact{typ: "user", name: "ana-coriander", description: "Ana hates coriander",
		body: "Ana can't stand coriander; it tastes like soap to her."})
	job := f.write(fact{typ: "user", name: "ana-job", description: "Ana works as a nurse",
		body: "Ana is a nurse at the Leeds hospital."})
	cheek := f.write(fact{typ: "user", name: "ana-cheek", description: "Ana's cheek was swollen",
		body: "Ana had a swollen cheek after the dentist."})
	x := f.open()
	ctx := context.Background()
	search := func(words string) []Hit {
		t.Helper()
		hits, err := x.FreshSearch(ctx, Query{Words: words, All: true, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	hits := search("which herb does Ana refuse to eat?")
	if len(hits) == 0 || hits[0].File != coriander {
		t.Fatalf("herb: got %v, want %s first", files(hits), coriander)
	}
	if !hasMatch(hits[0], "related", "coriander") {
		t.Errorf("herb: the explanation has no related match of coriander: %+v", hits[0].Explain.Terms)
	}
	// A word some fact has is looked for as itself alone.
	garden := f.write(fact{typ: "user", name: "herb-garden", description: "The herb garden",
		body: "The herb garden needs water on Sundays."})
	if hits := search("herb"); len(hits) != 1 || hits[0].File != garden {
		t.Errorf("herb: got %v, want %s alone", files(hits), garden)
	}

	// "cheer" is an English word: not corrected to "cheek". Without the
	// thesaurus it is.
	if hits := search("cheer"); len(hits) > 0 {
		t.Errorf("cheer: got %v, want nothing", files(hits))
	}
	restore := noThesaurus()
	hits = search("cheer")
	restore()
	if len(hits) == 0 || hits[0].File != cheek {
		t.Errorf("cheer without a thesaurus: got %v, want the typo's %s", files(hits), cheek)
	}
	// A misspelt word is still corrected.
	if hits := search("hostpital"); len(hits) == 0 || hits[0].File != job {
		t.Errorf("hostpital: got %v, want %s", files(hits), job)
	}
}

func hasMatch(h Hit, kind, form string) bool {
	if h.Explain == nil {
		return false
	}
	for _, ts := range h.Explain.Terms {
		for _, f := range ts.Forms {
			if ts.Match == kind && f == form {
				return true
			}
		}
	}
	return false
}
