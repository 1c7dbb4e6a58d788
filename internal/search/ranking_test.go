package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Ranking properties of issue 19, each on real files.

// TestRareWordInNameBeatsCommonWordInBody: of a query's two words, the
// rare one in a fact's name outweighs the common one, even said often, in
// another's body.
func TestRareWordInNameBeatsCommonWordInBody(t *testing.T) {
	f := newFolder(t)
	for i := range 60 {
		f.write(fact{"project", fmt.Sprintf("note-%02d", i), "A note", "", "Deploy notes: deploy on Fridays."})
	}
	f.write(fact{"project", "deploy-deploy", "Deploy, deploy, deploy", "", "Deploy deploy deploy deploy deploy."})
	f.write(fact{"project", "zeppelin", "Airship lore", "", "Nothing about shipping code."})
	x := f.open()
	q := Query{Words: "zeppelin deploy", Limit: 3}
	if got := find(t, x, q); len(got) == 0 || got[0] != "project-zeppelin.md" {
		t.Errorf("Search(%q) = %q, want the fact named for the rare word first", q.Words, got)
	}
}

// TestExactFormAboveStemmed: every form of a word finds a fact, the form
// typed first.
func TestExactFormAboveStemmed(t *testing.T) {
	f := newFolder(t,
		fact{"project", "plural", "Notes", "", "The translations live in locales/."},
		fact{"project", "singular", "Notes", "", "The translation lives in locales/."},
		fact{"project", "other", "Notes", "", "Nothing here."},
	)
	x := f.open()
	for words, want := range map[string][]string{
		"translations": {"project-plural.md", "project-singular.md"},
		"translation":  {"project-singular.md", "project-plural.md"},
		"translating":  nil, // both, no exact form: either order
	} {
		q := Query{Words: words}
		got := find(t, x, q)
		if want == nil {
			if len(got) != 2 {
				t.Errorf("Search(%q) = %q, want both", words, got)
			}
			continue
		}
		wantFiles(t, q, got, want...)
	}
}

// TestStopWordsDropped: a question and its keywords find the same facts in
// the same order, and the question's words do not make a fact full of them
// win.
func TestStopWordsDropped(t *testing.T) {
	f := newFolder(t,
		fact{"feedback", "no-obvious-comments", "No obvious comments", "", "Do not write what the code does; which is why and how it is, not what."},
		fact{"user", "shell", "Shell", "", "Uses fish as the login shell on every machine."},
		fact{"user", "editor", "Editor", "", "Uses helix; falls back to vim over ssh."},
	)
	x := f.open()
	for _, c := range []struct{ question, keywords string }{
		{"what shell do I use?", "shell use"},
		{"Which editor does the user use over SSH?", "editor user use ssh"},
	} {
		a, b := find(t, x, Query{Words: c.question}), find(t, x, Query{Words: c.keywords})
		if !slices.Equal(a, b) || len(a) == 0 {
			t.Errorf("Search(%q) = %q, Search(%q) = %q: want the same, not empty", c.question, a, c.keywords, b)
		}
		if a[0] == "feedback-no-obvious-comments.md" {
			t.Errorf("Search(%q) ranks the fact of stop words first", c.question)
		}
	}
	// Stop words alone: no hits, and no error.
	for _, words := range []string{"what do I", "which is how it is", "a", "the of and to"} {
		hits, err := x.Search(context.Background(), Query{Words: words})
		if err != nil || len(hits) != 0 {
			t.Errorf("Search(%q) = %d hits, %v; want none and no error", words, len(hits), err)
		}
	}
}

// TestIdentifiersWholeAndByParts: an identifier or a path is found by any
// of its spellings and by its parts, and a fact with it whole ranks above
// one that only has its parts apart.
func TestIdentifiersWholeAndByParts(t *testing.T) {
	f := newFolder(t,
		fact{"feedback", "hooks", "React hooks", "", "Avoid useEffect for derived state."},
		fact{"feedback", "parts", "Side notes", "", "Use a pure function; any effect belongs elsewhere."},
		fact{"reference", "users-handler", "Users handler", "", "The handler is src/api/users.go; tests in src/api/users_test.go."},
		fact{"reference", "http", "HTTP server", "", "The HTTPServer type wraps net/http with timeouts."},
	)
	x := f.open()
	for words, first := range map[string]string{
		"useEffect":        "feedback-hooks.md",
		"use-effect":       "feedback-hooks.md",
		"use_effect":       "feedback-hooks.md",
		"UseEffect":        "feedback-hooks.md",
		"use effect":       "feedback-hooks.md",
		"src/api/users.go": "reference-users-handler.md",
		"api/users.go":     "reference-users-handler.md",
		"users.go":         "reference-users-handler.md",
		"users_test.go":    "reference-users-handler.md",
		"http server":      "reference-http.md",
		"HTTPServer":       "reference-http.md",
	} {
		q := Query{Words: words}
		if got := find(t, x, q); len(got) == 0 || got[0] != first {
			t.Errorf("Search(%q) = %q, want %s first", words, got, first)
		}
	}
	q := Query{Words: "useEffect"}
	if got := find(t, x, q); !slices.Contains(got, "feedback-parts.md") {
		t.Errorf("Search(%q) = %q: the fact with its parts apart is not found", q.Words, got)
	}
}

// TestOldestOfThousandsFirst: in a store of 10,000 facts where thousands
// match the query and are newer, the one fact that matches best — the
// oldest, indexed first — is still first: every match is scored.
func TestOldestOfThousandsFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 facts")
	}
	f := newFolder(t)
	rng := rand.New(rand.NewPCG(7, 7))
	filler := strings.Fields("notes about builds tests release rollout review branch merge pipeline cache logs metrics")
	for i := range 9999 {
		var b strings.Builder
		for range 20 {
			b.WriteString(filler[rng.IntN(len(filler))] + " ")
		}
		if i%2 == 0 {
			b.WriteString("Deploy with care; the deploy script is in bin/.")
		}
		f.writeFile(fmt.Sprintf("project-n%05d.md", i), fmt.Sprintf(
			"---\nname: n%05d\ndescription: Note %d on the build\nmetadata:\n  type: project\n  updated: 2025-%02d-%02d\n---\n%s\n",
			i, i, 1+i%12, 1+i%28, b.String()))
	}
	f.writeFile("project-deploy-checklist.md", "---\nname: deploy-checklist\ndescription: The deploy checklist\nmetadata:\n"+
		"  type: project\n  updated: 2019-01-01\n---\nRun the smoke tests, then deploy.\n")
	x := f.open()
	for _, words := range []string{"deploy", "deploy checklist", "how do I deploy?"} {
		q := Query{Words: words, Limit: 5}
		if got := find(t, x, q); len(got) == 0 || got[0] != "project-deploy-checklist.md" {
			t.Errorf("Search(%q) = %q, want the oldest fact, named for it, first", words, got)
		}
	}
	q := Query{Words: "deploy", Limit: MaxLimit}
	if got := find(t, x, q); len(got) != MaxLimit {
		t.Errorf("Search(%q, limit %d) = %d hits", q.Words, MaxLimit, len(got))
	}
}

// TestHostileQueriesLarge: a query of a megabyte — many words, one long
// word, syntax characters — answers without an error.
func TestHostileQueriesLarge(t *testing.T) {
	f := newFolder(t, tabsFact)
	x := f.open()
	rng := rand.New(rand.NewPCG(1, 1))
	var words strings.Builder
	for words.Len() < 1<<20 {
		fmt.Fprintf(&words, "w%x ", rng.Uint32())
	}
	for name, q := range map[string]string{
		"distinct words":   words.String(),
		"one word":         strings.Repeat("tabs", 1<<18),
		"syntax":           strings.Repeat(`"*(:^-)NEAR OR AND NOT{}[]'; `, 1<<15),
		"stop words":       strings.Repeat("what do I which how ", 1<<16),
		"tabs at the end":  strings.Repeat("x ", 1<<19) + "tabs",
		"control and junk": strings.Repeat("\x00\xff\x1b[31m", 1<<18) + " tabs",
	} {
		hits, err := x.Search(context.Background(), Query{Words: q, All: true})
		if err != nil {
			t.Errorf("%s (%d bytes): %v", name, len(q), err)
		}
		if name == "one word" && len(hits) != 0 {
			t.Errorf("%s: %d hits", name, len(hits))
		}
	}
	q := Query{Words: "tabs"}
	wantFiles(t, q, find(t, x, q), tabsFact.file())
}

// TestExplain: each hit says which words matched, how, where, and for how
// much.
func TestExplain(t *testing.T) {
	f := newFolder(t,
		fact{"feedback", "prefers-tabs", "Prefers tabs", "memoryd", "Tabs, not spaces, in every repository."},
	)
	x := f.open()
	hits, err := x.Search(context.Background(), Query{Words: "which tab for the repo?", Project: "memoryd", Explain: true})
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search: %+v, %v", hits, err)
	}
	e := hits[0].Explain
	if e == nil || len(e.Terms) != 2 || e.Boost != boostProject {
		t.Fatalf("Explain: %+v", e)
	}
	byWord := map[string]TermScore{}
	sum := 0.0
	for _, ts := range e.Terms {
		byWord[ts.Word] = ts
		sum += ts.Score
	}
	if ts := byWord["tab"]; ts.Match != "stem" || !slices.Contains(ts.Forms, "tabs") || !strings.Contains(ts.Fields, "name") || !strings.Contains(ts.Fields, "body") {
		t.Errorf("tab: %+v", ts)
	}
	if ts := byWord["repo"]; ts.Match != "synonym" || !slices.Equal(ts.Forms, []string{"repository"}) || ts.Fields != "body" {
		t.Errorf("repo: %+v", ts)
	}
	if d := sum - e.Text; d > 0.01 || d < -0.01 || hits[0].Score < e.Text*e.Boost-0.01 || hits[0].Score > e.Text*e.Boost+0.01 {
		t.Errorf("score %v, text %v, boost %v, terms sum %v", hits[0].Score, e.Text, e.Boost, sum)
	}
	if hits, _ := x.Search(context.Background(), Query{Words: "tabs", All: true}); len(hits) != 1 || hits[0].Explain != nil {
		t.Error("Explain without Query.Explain")
	}
}

// TestInboxNeverIndexed: facts waiting for review stay out of the index.
func TestInboxNeverIndexed(t *testing.T) {
	f := newFolder(t, tabsFact)
	f.writeFile("_inbox/feedback-tabs-too.md", fact{"feedback", "tabs-too", "Tabs too", "", "Tabs."}.content())
	x := f.open()
	q := Query{Words: "tabs"}
	wantFiles(t, q, find(t, x, q), tabsFact.file())
	if err := x.Sync(context.Background(), f.snapshot()); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, q, find(t, x, q), tabsFact.file())
	checkIntegrity(t, f.dbPath())
}

// TestStemmerAgreesWithFTS5: the Porter stemmer gives the stems of
// SQLite's porter tokenizer for a list of English words.
func TestStemmerAgreesWithFTS5(t *testing.T) {
	words := strings.Fields(`caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated
		troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional
		rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization
		predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti
		triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference
		airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou
		communism activate angulariti homologous effective bowdlerize probate rate cease controll roll
		generalization generalizations oscillators translations translation indentation indenting deploys
		deployment deploying configuration configured databases migrations migrated flaky intermittently
		credentials repository formatter formatting documentation throttled memoized approvals yes agree
		archaeology geology happily running runs ran generously abilities`)
	db := openFTS(t)
	for _, w := range words {
		if _, err := db.Exec(`DELETE FROM t`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO t (body) VALUES (?)`, w); err != nil {
			t.Fatal(err)
		}
		var want string
		if err := db.QueryRow(`SELECT term FROM v`).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, FTS5's porter: %q", w, got, want)
		}
	}
}
