package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrNoWords is returned by Search for a query without a word to look for:
// empty, blank, or only punctuation.
var ErrNoWords = errors.New("search: no words to search for")

// Limits on a query and its answer.
const (
	DefaultLimit = 10   // hits when Query.Limit is 0 or less
	MaxLimit     = 1000 // hits at most, whatever Query.Limit says
	maxWords     = 32   // words of a query used; the rest are ignored
	maxWordBytes = 128  // bytes of a word used
	snippetBytes = 200  // bytes of a snippet at most, "…" included
)

// Ranking. bm25 weighs a match in each column of fact_text by these (name,
// title, description, body), so a fact named or described by the words
// ranks above one that mentions them in passing. A fact's score is then
// multiplied by its scope's boost: a fact of the current project ranks
// above an equally good global one, and a global one above one of another
// project, while a much better match still wins across scopes.
const (
	bm25Weights    = "10.0, 8.0, 6.0, 1.0"
	boostProject   = 1.5
	boostGlobal    = 1.0
	boostElsewhere = 0.75
)

// Query is a search.
type Query struct {
	// Words is what a user or a model typed. Every word must match (after
	// stemming: "indenting" finds "indent"), the last one as a prefix;
	// when no fact matches them all, facts matching any of them are
	// returned. Quotes, operators and punctuation are plain text here:
	// "a-b" is the phrase "a b", and AND, OR, NOT, NEAR, *, ^ and : mean
	// nothing.
	Words string
	// Project is the current project's slug ("" outside a project). Its
	// facts rank first; with All false they and the global facts are all
	// that is searched.
	Project string
	// All searches the facts of every project too.
	All bool
	// Type keeps only facts of this metadata.type ("" for any).
	Type string
	// Limit is the most hits returned: DefaultLimit when 0 or less, at
	// most MaxLimit.
	Limit int
}

// Hit is one fact found, best first.
type Hit struct {
	File        string  // relative to the memory folder
	Name        string  // frontmatter name, or derived from File
	Title       string  // frontmatter title, "" when it has none
	Description string  // frontmatter description
	Type        string  // metadata.type, lower-cased; "" when missing
	Project     string  // the fact's project (index.Memory.Scope), "" for a global fact
	Snippet     string  // words of the body around the best match (its start when none is there), one line
	Score       float64 // higher is better; only comparable within one search
}

// Search returns the facts that best match q, best first. An index without
// a fingerprint — never built, just replaced, or marked stale by Sync — is
// built from the files first; otherwise Search answers from the index as it
// is: a command calls Fresh first, the daemon keeps its own index in sync.
// An empty query is ErrNoWords; no hits is not an error.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	all, either := matchExprs(q.Words)
	if all == "" {
		return nil, ErrNoWords
	}
	var hits []Hit
	run := func() error {
		var err error
		if hits, err = x.search(ctx, q, all); err != nil || len(hits) > 0 || either == all {
			return err
		}
		hits, err = x.search(ctx, q, either)
		return err
	}
	err := x.do(ctx, func() error {
		// A new index, or one just replaced, has no fingerprint.
		if sum, err := storedFingerprint(x.db); err != nil || sum == "" {
			if err != nil {
				return err
			}
			if err := x.fresh(ctx); err != nil {
				return fmt.Errorf("build search index: %w", err)
			}
		}
		return run()
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

// searchSQL ranks the matches and keeps the best, then makes the snippets
// of those alone: snippet() reads and tokenizes a body, which for a common
// word would otherwise be done for every fact that has it.
var searchSQL = `
WITH best AS (
	SELECT fact_text.rowid AS id, f.file AS file, f.type AS type, f.project AS project,
		bm25(fact_text, ` + bm25Weights + `) * (CASE
			WHEN f.project = ?1 THEN ` + boostSQL(boostProject) + `
			WHEN f.project = '' THEN ` + boostSQL(boostGlobal) + `
			ELSE ` + boostSQL(boostElsewhere) + ` END) AS score,
		f.updated AS updated
	FROM fact_text JOIN fact f ON f.id = fact_text.rowid
	WHERE fact_text MATCH ?2 AND (?3 OR f.project = '' OR f.project = ?1) AND (?4 = '' OR f.type = ?4)
	ORDER BY score, updated DESC, file
	LIMIT ?5
)
SELECT best.file, fact_text.name, fact_text.title, fact_text.description, best.type, best.project,
	snippet(fact_text, 3, '', '', '…', 16), -best.score
FROM best JOIN fact_text ON fact_text.rowid = best.id
WHERE fact_text MATCH ?2
ORDER BY best.score, best.updated DESC, best.file`

func boostSQL(f float64) string { return fmt.Sprint(f) }

func (x *Index) search(ctx context.Context, q Query, match string) ([]Hit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	rows, err := x.db.QueryContext(ctx, searchSQL, strings.TrimSpace(q.Project), match, q.All,
		strings.ToLower(strings.TrimSpace(q.Type)), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.File, &h.Name, &h.Title, &h.Description, &h.Type, &h.Project,
			&h.Snippet, &h.Score); err != nil {
			return nil, err
		}
		h.Snippet = oneLine(h.Snippet, snippetBytes)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// matchExprs turns what someone typed into FTS5 queries that cannot be a
// syntax error. Each word (separated by white space or control characters)
// keeps only its runs of letters and digits, which become one quoted FTS5
// string — a phrase: "prefers-tabs" is "prefers tabs" — and the last word
// is a prefix. Quotes, operators, column filters and every other piece of
// FTS5 syntax are thereby plain separators. all requires every word, either
// (OR) any of them; they are equal for one word, and "" when there is no
// word. A query is cut to maxWords words of at most maxWordBytes.
func matchExprs(words string) (all, either string) {
	var quoted []string
	for _, w := range strings.FieldsFunc(strings.ToValidUTF8(words, " "), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) {
		phrase := strings.Join(strings.FieldsFunc(w, func(r rune) bool { return !isWordRune(r) }), " ")
		if phrase == "" {
			continue
		}
		quoted = append(quoted, `"`+cut(phrase, maxWordBytes)+`"`)
		if len(quoted) == maxWords {
			break
		}
	}
	if len(quoted) == 0 {
		return "", ""
	}
	quoted[len(quoted)-1] += "*"
	return strings.Join(quoted, " "), strings.Join(quoted, " OR ")
}

// isWordRune reports whether r can be part of a token for FTS5's unicode61
// tokenizer: letters, digits, private-use characters, and the combining
// marks that it folds into the letter before them.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.In(r, unicode.Co, unicode.Mn)
}

// cut returns s cut to at most n bytes at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// oneLine folds every run of white space and control characters in s into
// one space and cuts the result to at most n bytes, ending it with "…" when
// it was cut.
func oneLine(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) <= n {
		return out
	}
	return strings.TrimRight(cut(out, n-len("…")), " ") + "…"
}
