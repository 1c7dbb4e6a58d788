package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memoryd/memoryd/internal/state"
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
	// stemming: "indenting" finds "indent"), the last one also as a
	// prefix when whole words find too few facts; when no fact matches
	// them all, facts matching any of them are returned. Quotes, operators
	// and punctuation are plain text here: "a-b" is the phrase "a b", and
	// AND, OR, NOT, NEAR, *, ^ and : mean nothing.
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
// Its JSON keys are those of `memoryd list --json`.
type Hit struct {
	File        string  `json:"file"`              // relative to the memory folder
	Name        string  `json:"name"`              // frontmatter name, or derived from File
	Title       string  `json:"title,omitempty"`   // frontmatter title, "" when it has none
	Description string  `json:"description"`       // frontmatter description
	Type        string  `json:"type"`              // metadata.type, lower-cased; "" when missing
	Project     string  `json:"project,omitempty"` // the fact's project (index.Memory.Scope), "" for a global fact
	Snippet     string  `json:"snippet"`           // words of the body around the best match (its start when none is there), one line
	Score       float64 `json:"score"`             // higher is better; only comparable within one search
}

// Search returns the facts that best match q, best first. An index without
// a fingerprint — never built, just replaced, or marked stale by Sync — is
// built from the files first; otherwise Search answers from the index as it
// is: the daemon keeps its own index in sync; a command or the MCP server
// calls FreshSearch.
// An empty query is ErrNoWords; no hits is not an error.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	words := queryWords(q.Words)
	if len(words) == 0 {
		return nil, ErrNoWords
	}
	var hits []Hit
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
		var err error
		hits, err = x.find(ctx, q, words)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

// FreshSearch is Search for a command or the MCP server: it answers as the
// files are. While a daemon runs (it holds state.DaemonLock in the state
// folder) it keeps the index in step with every change, and the index
// answers alone. Otherwise the index is made fresh first (Fresh: a stat of
// every file, about 20 ms at 10,000 facts, and a scan only when something
// changed). Running the query while the folder is stat-ed was tried: on two
// cores it made the whole slower, the stat-ing threads and the query
// slowing each other down.
func (x *Index) FreshSearch(ctx context.Context, q Query) ([]Hit, error) {
	if len(queryWords(q.Words)) == 0 {
		return nil, ErrNoWords
	}
	if !state.Held(x.stateDir, state.DaemonLock) {
		if err := x.Fresh(ctx); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	return x.Search(ctx, q)
}

// Find is FreshSearch for a command that searches once: it opens the
// index, answers, and closes it.
func Find(ctx context.Context, stateDir, memoryDir string, q Query) ([]Hit, error) {
	x, err := Open(stateDir, memoryDir)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	return x.FreshSearch(ctx, q)
}

// find tries the FTS5 expressions of words in turn until it has q's limit
// of hits: every word as typed, then with the last one as a prefix (a whole
// word found ranks above a word it begins), and only when no fact has them
// all, any of the words in the same two ways. Each expression adds the facts
// the ones before it did not find.
func (x *Index) find(ctx context.Context, q Query, words []string) ([]Hit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	var hits []Hit
	for _, join := range []string{" ", " OR "} {
		if join == " OR " && (len(hits) > 0 || len(words) == 1) {
			break
		}
		for _, prefix := range []bool{false, true} {
			if len(hits) >= limit {
				return hits, nil
			}
			more, err := x.ranked(ctx, q, matchExpr(words, join, prefix), limit-len(hits), hits)
			if err != nil {
				return nil, err
			}
			hits = append(hits, more...)
		}
	}
	return hits, nil
}

// rankWindow is the most matches of one expression a search ranks. bm25
// costs SQLite a few microseconds a fact, so ranking a word every fact has
// would take 30 ms at 10,000 facts. Past rankWindow matches, a search ranks
// the newest rankWindow that have the words in their name, title or
// description, then the newest rankWindow of all: a word that common tells
// little about which fact is meant (bm25 gives it almost no weight), while
// where it stands tells more. "Newest" is the order facts were last
// indexed in, which apply keeps to the order of metadata.updated.
const rankWindow = 200

// candidate is a fact matched by an expression, before its text is read.
type candidate struct {
	id                          int64
	file, typ, project, updated string
	score                       float64 // bm25 × boost: lower is better
}

// ranked returns up to n facts matching match, best first, leaving out the
// files of skip, with their text and snippets.
func (x *Index) ranked(ctx context.Context, q Query, match string, n int, skip []Hit) ([]Hit, error) {
	best, full, err := x.window(ctx, q, match, false, n+len(skip))
	if err != nil {
		return nil, err
	}
	best = byScore(best)
	if full {
		head, _, err := x.window(ctx, q, match, true, n+len(skip))
		if err != nil {
			return nil, err
		}
		best = append(byScore(head), best...)
	}
	seen := make(map[string]bool, len(skip)+n)
	for _, h := range skip {
		seen[h.File] = true
	}
	var hits []Hit
	for _, c := range best {
		if len(hits) == n {
			break
		}
		if seen[c.file] {
			continue
		}
		seen[c.file] = true
		h, err := x.hit(ctx, match, c)
		if err != nil {
			return nil, err
		}
		// A fact ranked later never shows a better score than one above it.
		if len(hits) > 0 {
			h.Score = min(h.Score, hits[len(hits)-1].Score)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// windowSQL is the newest rankWindow+1 facts matching an expression in
// table (fact_text, or fact_head for the words in a fact's name, title or
// description), with their scores: bm25 weighted by column, times the
// fact's scope boost.
func windowSQL(table string) string {
	weights := bm25Weights
	if table == "fact_head" {
		weights = bm25Weights[:strings.LastIndex(bm25Weights, ",")]
	}
	return `
SELECT f.id, f.file, f.type, f.project, f.updated,
	bm25(` + table + `, ` + weights + `) * (CASE
		WHEN f.project = ?1 THEN ` + boostSQL(boostProject) + `
		WHEN f.project = '' THEN ` + boostSQL(boostGlobal) + `
		ELSE ` + boostSQL(boostElsewhere) + ` END)
FROM ` + table + ` JOIN fact f ON f.id = ` + table + `.rowid
WHERE ` + table + ` MATCH ?2 AND (?3 OR f.project = '' OR f.project = ?1) AND (?4 = '' OR f.type = ?4)
ORDER BY ` + table + `.rowid DESC
LIMIT ?5`
}

var textWindowSQL, headWindowSQL = windowSQL("fact_text"), windowSQL("fact_head")

func boostSQL(f float64) string { return fmt.Sprint(f) }

// window returns the newest rankWindow facts matching match (in their
// name, title or description alone when head is set) within q's scope and
// type, and whether more match. With a type, it looks at the newest
// matches of any type first and keeps that type's: when they are need or
// more, no older match's type is checked (a join, each); when fewer, it
// asks for the newest of that type alone.
func (x *Index) window(ctx context.Context, q Query, match string, head bool, need int) ([]candidate, bool, error) {
	typ := strings.ToLower(strings.TrimSpace(q.Type))
	if typ != "" {
		all, full, err := x.newest(ctx, q, match, head, "")
		if err != nil {
			return nil, false, err
		}
		kept := slices.DeleteFunc(all, func(c candidate) bool { return c.typ != typ })
		if !full || len(kept) >= need {
			return kept, full, nil
		}
	}
	return x.newest(ctx, q, match, head, typ)
}

// newest is window for a type ("" for any), from SQL.
func (x *Index) newest(ctx context.Context, q Query, match string, head bool, typ string) ([]candidate, bool, error) {
	query := textWindowSQL
	if head {
		query = headWindowSQL
	}
	rows, err := x.db.QueryContext(ctx, query, strings.TrimSpace(q.Project), match, q.All, typ, rankWindow+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.file, &c.typ, &c.project, &c.updated, &c.score); err != nil {
			return nil, false, err
		}
		out = append(out, c)
	}
	if len(out) > rankWindow {
		return out[:rankWindow], true, rows.Err()
	}
	return out, false, rows.Err()
}

// byScore sorts cs best first: by score, then the newer, then by file.
func byScore(cs []candidate) []candidate {
	slices.SortFunc(cs, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.score, b.score), -strings.Compare(a.updated, b.updated), strings.Compare(a.file, b.file))
	})
	return cs
}

// hitSQL reads a fact's text and makes its snippet: snippet() reads and
// tokenizes a body, so it is made for the facts shown alone.
const hitSQL = `SELECT name, title, description, snippet(fact_text, 3, '', '', '…', 16)
FROM fact_text WHERE fact_text MATCH ?1 AND rowid = ?2`

func (x *Index) hit(ctx context.Context, match string, c candidate) (Hit, error) {
	h := Hit{File: c.file, Type: c.typ, Project: c.project, Score: -c.score}
	err := x.db.QueryRowContext(ctx, hitSQL, match, c.id).Scan(&h.Name, &h.Title, &h.Description, &h.Snippet)
	h.Snippet = oneLine(h.Snippet, snippetBytes)
	return h, err
}

// queryWords turns what someone typed into FTS5 strings that cannot be a
// syntax error. Each word (separated by white space or control characters)
// keeps only its runs of letters and digits, which become one quoted FTS5
// string — a phrase: "prefers-tabs" is "prefers tabs". Quotes, operators,
// column filters and every other piece of FTS5 syntax are thereby plain
// separators. A query is cut to maxWords words of at most maxWordBytes.
func queryWords(words string) []string {
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
	return quoted
}

// matchExpr joins quoted words with join (" " for all of them, " OR " for
// any), the last one a prefix when prefix is set.
func matchExpr(quoted []string, join string, prefix bool) string {
	expr := strings.Join(quoted, join)
	if prefix {
		expr += "*"
	}
	return expr
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
