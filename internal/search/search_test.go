package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFTS5Available(t *testing.T) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61')`); err != nil {
		t.Fatalf("FTS5 with the porter tokenizer is not compiled into modernc.org/sqlite: %v", err)
	}
	if _, err := db.Exec(`INSERT INTO t (body) VALUES ('indentation with tabs')`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t WHERE t MATCH 'indenting'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("porter stemming: %d rows, %v", n, err)
	}
}

func TestNameAndDescriptionBeatBody(t *testing.T) {
	f := newFolder(t,
		fact{"feedback", "aaa-mentions", "Notes on review comments", "", "Reviewers dislike tabs in YAML files."},
		fact{"feedback", "prefers-tabs", "Indentation choice", "", "Use them everywhere."},
		fact{"feedback", "zzz-described", "Wants tabs in Go code", "", "Nothing more."},
	)
	x := f.open()
	q := Query{Words: "tabs"}
	wantFiles(t, q, find(t, x, q), "feedback-prefers-tabs.md", "feedback-zzz-described.md", "feedback-aaa-mentions.md")
}

func TestCurrentProjectFirst(t *testing.T) {
	body := "Run the linter before every commit."
	f := newFolder(t,
		fact{"project", "lint-a", "Lint rule", "other", body},
		fact{"project", "lint-b", "Lint rule", "", body},
		fact{"project", "lint-c", "Lint rule", "memoryd", body},
	)
	x := f.open()
	for _, c := range []struct {
		q    Query
		want []string
	}{
		{Query{Words: "linter", Project: "memoryd", All: true}, []string{"project-lint-c.md", "project-lint-b.md", "project-lint-a.md"}},
		{Query{Words: "linter", Project: "memoryd"}, []string{"project-lint-c.md", "project-lint-b.md"}},
		{Query{Words: "linter", Project: "other"}, []string{"project-lint-a.md", "project-lint-b.md"}},
		{Query{Words: "linter"}, []string{"project-lint-b.md"}},
		{Query{Words: "linter", All: true}, []string{"project-lint-b.md", "project-lint-a.md", "project-lint-c.md"}},
		{Query{Words: "linter", Project: "nowhere"}, []string{"project-lint-b.md"}},
	} {
		wantFiles(t, c.q, find(t, x, c.q), c.want...)
	}
	hits, err := x.Search(context.Background(), Query{Words: "linter", Project: "memoryd", All: true})
	if err != nil {
		t.Fatal(err)
	}
	if hits[0].Project != "memoryd" || hits[1].Project != "" || hits[2].Project != "other" {
		t.Errorf("projects of hits: %+v", hits)
	}
	if !(hits[0].Score > hits[1].Score && hits[1].Score > hits[2].Score && hits[2].Score > 0) {
		t.Errorf("scores not decreasing and positive: %v %v %v", hits[0].Score, hits[1].Score, hits[2].Score)
	}
}

func TestBetterMatchWinsAcrossProjects(t *testing.T) {
	f := newFolder(t,
		fact{"feedback", "prefers-tabs", "Prefers tabs for indentation", "", "Always."},
		fact{"project", "build-notes", "How the build works", "memoryd", "The Makefile uses tabs, as make requires."},
	)
	x := f.open()
	q := Query{Words: "tabs", Project: "memoryd"}
	wantFiles(t, q, find(t, x, q), "feedback-prefers-tabs.md", "project-build-notes.md")
}

func TestStemming(t *testing.T) {
	f := newFolder(t,
		fact{"feedback", "style", "Code style", "", "Indent with tabs, never spaces."},
		fact{"user", "other", "Unrelated", "", "Likes coffee."},
	)
	x := f.open()
	for _, words := range []string{"indenting", "indented", "indents tabs", "indenting spaces", "INDENT", "tab"} {
		q := Query{Words: words}
		wantFiles(t, q, find(t, x, q), "feedback-style.md")
	}
}

func TestLastWordIsAPrefix(t *testing.T) {
	f := newFolder(t, fact{"feedback", "style", "Code style", "", "Prefers the gofumpt formatter."})
	x := f.open()
	for _, words := range []string{"gofum", "prefers gof", "form"} {
		q := Query{Words: words}
		wantFiles(t, q, find(t, x, q), "feedback-style.md")
	}
	q := Query{Words: "gofum zzz"} // only the last word is a prefix
	wantFiles(t, q, find(t, x, q))
}

func TestAllWordsElseAny(t *testing.T) {
	f := newFolder(t,
		fact{"user", "coffee", "Drinks", "", "Likes coffee in the morning."},
		fact{"user", "tea", "Drinks", "", "Likes tea in the afternoon."},
	)
	x := f.open()
	q := Query{Words: "coffee morning"}
	wantFiles(t, q, find(t, x, q), "user-coffee.md")
	q = Query{Words: "coffee afternoon"} // no fact has both: either word will do
	if got := find(t, x, q); len(got) != 2 {
		t.Errorf("Search(%q) = %q, want both facts", q.Words, got)
	}
}

func TestTypeFilter(t *testing.T) {
	f := newFolder(t,
		fact{"user", "editor", "Editor", "", "Uses vim."},
		fact{"reference", "vim-docs", "Where vim docs are", "", "See :help."},
	)
	x := f.open()
	q := Query{Words: "vim", Type: "reference"}
	wantFiles(t, q, find(t, x, q), "reference-vim-docs.md")
	q = Query{Words: "vim", Type: " USER "}
	wantFiles(t, q, find(t, x, q), "user-editor.md")
	q = Query{Words: "vim", Type: "project"}
	wantFiles(t, q, find(t, x, q))
}

func TestLimit(t *testing.T) {
	f := newFolder(t)
	for i := range 30 {
		f.write(fact{"user", "fact-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), "Same", "", "common word"})
	}
	x := f.open()
	for _, c := range []struct{ limit, want int }{{0, DefaultLimit}, {-1, DefaultLimit}, {3, 3}, {100, 30}} {
		if got := find(t, x, Query{Words: "common", Limit: c.limit}); len(got) != c.want {
			t.Errorf("Limit %d: %d hits, want %d", c.limit, len(got), c.want)
		}
	}
}

func TestHitFields(t *testing.T) {
	body := "First line about deploys.\n\n  Second   line,\tindented.\n" + strings.Repeat("filler words here ", 100) + "\nthe deploy key lives in the vault"
	f := newFolder(t, fact{"reference", "deploy-key", "Where the deploy key is", "memoryd", body})
	f.writeFile("sub/titled.md", "---\nname: titled\ntitle: A Title\ndescription: d\n---\nvault access\n")
	x := f.open()
	hits, err := x.Search(context.Background(), Query{Words: "vault", Project: "memoryd"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("hits: %+v", hits)
	}
	if hits[0].File != "reference-deploy-key.md" {
		hits[0], hits[1] = hits[1], hits[0]
	}
	h := hits[0]
	if h.File != "reference-deploy-key.md" || h.Name != "deploy-key" || h.Description != "Where the deploy key is" ||
		h.Type != "reference" || h.Project != "memoryd" || h.Title != "" {
		t.Errorf("hit: %+v", h)
	}
	if !strings.Contains(h.Snippet, "vault") || strings.ContainsAny(h.Snippet, "\n\t") ||
		len(h.Snippet) > snippetBytes || !utf8.ValidString(h.Snippet) {
		t.Errorf("snippet %q: want one line of at most %d bytes around the match", h.Snippet, snippetBytes)
	}
	if t2 := hits[1]; t2.File != "sub/titled.md" || t2.Title != "A Title" || t2.Type != "" || t2.Snippet != "vault access" {
		t.Errorf("hit in a subfolder: %+v", t2)
	}
}

func TestHostileQueries(t *testing.T) {
	f := newFolder(t,
		fact{"feedback", "prefers-tabs", "Prefers tabs", "", "Tabs, not spaces. Ünïcode café 日本語 ok."},
	)
	x := f.open()
	found := []string{"feedback-prefers-tabs.md"}
	for _, c := range []struct {
		words string
		want  []string
	}{
		{`"tabs`, found},
		{`tabs"`, found},
		{`"tabs" "spaces"`, found},
		{`tabs*`, found},
		{`*tabs`, found},
		{`-tabs`, found},
		{`tabs -spaces`, found},
		{`tabs AND`, found},
		{`AND tabs`, nil}, // "and" is a word like any other; the fact lacks it, then OR finds it
		{`tabs OR spaces`, nil},
		{`NOT tabs`, nil},
		{`NEAR(tabs spaces)`, found},
		{`(tabs`, found},
		{`tabs)`, found},
		{`name:tabs`, nil},
		{`{name}:tabs`, nil},
		{`^tabs`, found},
		{`tabs + spaces`, found},
		{`prefers-tabs`, found},
		{"tabs\x00spaces", found},
		{"ta\x00bs", nil},
		{"tabs\xff\xfe", found},
		{`café`, found},
		{`CAFE`, found}, // diacritics are folded
		{`日本語`, found},
		{`🙂 tabs`, found},
		{`'tabs'`, found},
		{`tabs;DROP TABLE fact;--`, nil},
		{strings.Repeat("tabs ", 10000), found},
		{strings.Repeat("x", 100000), nil},
		{strings.Repeat(`"(*`, 1000) + "tabs", found},
	} {
		hits, err := x.Search(context.Background(), Query{Words: c.words, All: true})
		if err != nil {
			t.Errorf("Search(%.40q): %v", c.words, err)
			continue
		}
		if c.want != nil && !slicesEqual(files(hits), c.want) {
			t.Errorf("Search(%.40q) = %q, want %q", c.words, files(hits), c.want)
		}
	}
	for _, words := range []string{"", "   ", "\t\n", `"`, `""`, `*`, `- * ( ) : ^ "`, "\x00", "🙂", "\xff"} {
		if _, err := x.Search(context.Background(), Query{Words: words}); !errors.Is(err, ErrNoWords) {
			t.Errorf("Search(%q): %v, want ErrNoWords", words, err)
		}
	}
	// The index is still whole after all that.
	q := Query{Words: "tabs"}
	wantFiles(t, q, find(t, x, q), found...)
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

func TestParseQuery(t *testing.T) {
	for _, c := range []struct{ in, words, last string }{
		{"tabs", "tabs", "tabs"},
		{`a "bb" cc`, "bb cc", "cc"},
		{`prefers-tabs NEAR(x:y)`, "prefers tabs preferstabs near xy", "near"},
		{"x\x00yy", "yy", "yy"},
		{"- * tabs", "tabs", "tabs"},
		{"What shell do I use?", "shell use", "use"},
		{"useEffect src/api/users.go", "use effect useeffect src api users go srcapiusersgo apiusersgo usersgo", "go"},
		{"HTTPServer café", "http server httpserver cafe", "cafe"},
		{"the user's don't", "user", "user"},
	} {
		p := parseQuery(c.in)
		if got := strings.Join(p.words, " "); got != c.words || p.last != c.last || !p.any {
			t.Errorf("parseQuery(%q) = %q, last %q, any %v; want %q, last %q", c.in, got, p.last, p.any, c.words, c.last)
		}
	}
	if p := parseQuery(" \t- "); len(p.words) != 0 || p.any {
		t.Errorf("parseQuery of no words = %+v", p)
	}
	if p := parseQuery("what do I"); len(p.words) != 0 || !p.any {
		t.Errorf("parseQuery of stop words = %+v, want no terms but words", p)
	}
	if n := len(parseQuery(strings.Repeat("word ", 100) + strings.Repeat("é", 200)).words); n != 2 {
		t.Errorf("%d distinct words kept, want 2", n)
	}
	var many []string
	for i := range 100 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	if n := len(parseQuery(strings.Join(many, " ")).words); n != maxWords {
		t.Errorf("%d words kept, want %d", n, maxWords)
	}
}

func TestInvalidProjectIsGlobal(t *testing.T) {
	f := newFolder(t, fact{"project", "odd", "Odd scope", "Not A Slug!", "Linter rules."})
	x := f.open()
	q := Query{Words: "linter"}
	hits, err := x.Search(context.Background(), q)
	if err != nil || len(hits) != 1 || hits[0].Project != "" {
		t.Errorf("Search: %+v, %v; want the fact as a global one, as MEMORY.md lists it", hits, err)
	}
}

func TestNewerFirstAmongEquals(t *testing.T) {
	f := newFolder(t)
	for _, c := range []struct{ name, updated string }{{"a-old", "2024-01-02"}, {"b-new", "2025-3-7"}, {"c-none", ""}} {
		f.writeFile("user-"+c.name+".md", "---\nname: "+c.name+"\ndescription: Same\nmetadata:\n  type: user\n  updated: "+
			c.updated+"\n---\nSame words.\n")
	}
	x := f.open()
	q := Query{Words: "words"}
	wantFiles(t, q, find(t, x, q), "user-b-new.md", "user-a-old.md", "user-c-none.md")
}

// TestCommonWordRanksNamesThenNewest: a word hundreds of facts have puts
// the fact with it in its name first, however old, then the others newest
// first, and every one of them is ranked: no window of the newest.
// (Before issue 19, only the newest 200 were; this test asserted that.
// Before issue 29 the word in the description was enough: the description
// weighed twice the body; now it weighs the same.)
func TestCommonWordRanksNamesThenNewest(t *testing.T) {
	f := newFolder(t)
	n := 300
	for i := range n {
		updated := fmt.Sprintf("2025-01-%02d", 1+i*28/n)
		if i >= n-2 {
			updated = fmt.Sprintf("2025-02-%02d", i-n+3) // the two newest
		}
		f.writeFile(fmt.Sprintf("user-note-%04d.md", i), fmt.Sprintf(
			"---\nname: note-%04d\ndescription: Note %d\nmetadata:\n  type: user\n  updated: %s\n---\nHow to apply: carefully.\n",
			i, i, updated))
	}
	f.write(fact{"reference", "apply-patches", "How patches apply here", "", "Old, and named for it."})
	x := f.open()
	q := Query{Words: "apply", Limit: 3}
	wantFiles(t, q, find(t, x, q), "reference-apply-patches.md", fmt.Sprintf("user-note-%04d.md", n-1), fmt.Sprintf("user-note-%04d.md", n-2))

	q.Limit = MaxLimit
	got := find(t, x, q)
	if len(got) != 1+n || !slices.Contains(got, "user-note-0000.md") {
		t.Fatalf("Search(%q) found %d facts (user-note-0000.md among them: %v); want all %d",
			q.Words, len(got), slices.Contains(got, "user-note-0000.md"), 1+n)
	}
	f.writeFile("user-note-0000.md", "---\nname: note-0000\ndescription: Note 0\nmetadata:\n  type: user\n  updated: 2025-03-01\n---\nHow to apply: now with care.\n")
	if err := x.Sync(context.Background(), f.snapshot()); err != nil {
		t.Fatal(err)
	}
	if got := find(t, x, Query{Words: "apply care"}); len(got) == 0 || got[0] != "user-note-0000.md" {
		t.Errorf("after a change, user-note-0000.md is not first for its new word: %q", got)
	}
}

// TestCommonWordOfAType: with a type, a common word finds that type's
// facts even when every newer match is of another type.
func TestCommonWordOfAType(t *testing.T) {
	f := newFolder(t)
	for i := range 250 {
		typ, updated := "user", "2025-06-01"
		if i < 3 {
			typ, updated = "reference", "2020-01-01"
		}
		f.writeFile(fmt.Sprintf("%s-note-%04d.md", typ, i), fmt.Sprintf(
			"---\nname: note-%04d\ndescription: Note %d\nmetadata:\n  type: %s\n  updated: %s\n---\nHow to apply: carefully.\n",
			i, i, typ, updated))
	}
	x := f.open()
	q := Query{Words: "apply", Type: "reference"}
	got := find(t, x, q)
	slices.Sort(got)
	wantFiles(t, q, got, "reference-note-0000.md", "reference-note-0001.md", "reference-note-0002.md")
	q = Query{Words: "apply", Type: "user", Limit: 5}
	if got := find(t, x, q); len(got) != 5 {
		t.Errorf("Search(%q, type user) = %d facts, want 5", q.Words, len(got))
	}
}

// openFTS opens an in-memory FTS5 table t with the porter tokenizer and its
// vocabulary v.
func openFTS(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter ascii')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, row)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	return db
}
