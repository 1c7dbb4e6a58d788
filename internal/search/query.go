package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/memoryd/memoryd/internal/state"
)

// ErrNoWords is returned by Search for a query without a word to look for:
// empty, blank, or only punctuation. A query of stop words alone ("what
// do I") has words, and finds nothing.
var ErrNoWords = errors.New("search: no words to search for")

// Limits on a query and its answer.
const (
	DefaultLimit  = 10       // hits when Query.Limit is 0 or less
	MaxLimit      = 1000     // hits at most, whatever Query.Limit says
	maxWords      = 32       // terms of a query used; the rest are ignored
	maxQueryBytes = 64 << 10 // bytes of a query read; the rest is ignored
	snippetBytes  = 200      // bytes of a snippet at most, "…" included
	maxPrefixes   = 64       // terms the last word stands for as a prefix
)

// Query is a search.
type Query struct {
	// Words is what a user or a model typed: keywords or a question.
	// Stop words and question words are dropped; the other words are
	// matched in any form with the same stem, by their synonyms, and
	// identifiers and paths whole and by parts. No word is required: the
	// facts are ranked by how well they match all of them. The last word
	// also matches as a prefix when the words find fewer facts than
	// Limit. A word of five letters or more that no fact has is taken
	// for a typo and matched to the nearest words that facts have, below
	// the words as typed (typo.go). Quotes, operators and punctuation
	// mean nothing.
	Words string
	// Phrasings are other phrasings of the same need as Words: each is
	// searched as Words is, and the rankings are fused into one (see
	// phrasings.go). At most maxPhrasings, Words included, are used.
	Phrasings []string
	// Project is the current project's slug ("" outside a project). Its
	// facts rank first; with All false they and the global facts are all
	// that is searched.
	Project string
	// All searches the facts of every project too.
	All bool
	// Type keeps only facts of this metadata.type ("" for any).
	Type string
	// AllVersions returns superseded facts too (metadata.superseded_by):
	// without it a search finds only the facts that replaced them.
	AllVersions bool
	// Limit is the most hits returned: DefaultLimit when 0 or less, at
	// most MaxLimit.
	Limit int
	// Explain sets each Hit's Explain.
	Explain bool
	// Embedder, when set, adds the second signal (see dense.go): the
	// query's embedding ranks the facts by meaning, fused with the words'
	// ranking. nil means the Index's own (SetEmbedder), if any.
	Embedder Embedder
	// Fusion is how the two rankings are fused: FusionZScore or
	// FusionRRF (fuse.go); "" means the Index's (SetFusion), by default
	// FusionZScore.
	Fusion string
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
	// SupersededBy is the file of the fact that replaced this one; only
	// with Query.AllVersions is a superseded fact returned.
	SupersededBy string       `json:"supersededBy,omitempty"`
	Explain      *Explanation `json:"explain,omitempty"` // why it ranked there, with Query.Explain
}

// Explanation is why a fact ranked where it did: Score = Text × Boost, or
// with Fusion, the fused score of the two rankings.
type Explanation struct {
	Terms   []TermScore `json:"terms"`             // the query's words that matched, best first
	Text    float64     `json:"text"`              // the sum of the terms' scores
	Boost   float64     `json:"boost"`             // the scope's factor: current project, global, another project
	Pinned  bool        `json:"pinned,omitempty"`  // breaks ties first
	Updated string      `json:"updated,omitempty"` // metadata.updated, breaks ties next
	Prefix  bool        `json:"prefix,omitempty"`  // found only by the last word as a prefix, ranked after the rest
	Passage float64     `json:"passage,omitempty"` // the score of a long fact's best passage, part of Text (passage.go)
	Fusion  *Fusion     `json:"fusion,omitempty"`  // the ranks fused, when the search used embeddings
}

// TermScore is what one word of a query adds to a fact's score.
type TermScore struct {
	Word   string   `json:"word"`   // the query's word, folded
	Match  string   `json:"match"`  // "exact", "stem", "synonym", "related" (related.go), "typo", "prefix" or "feedback"
	Forms  []string `json:"forms"`  // the fact's words that matched it
	Fields string   `json:"fields"` // where they are: name, title, description, body, ×count
	IDF    float64  `json:"idf"`    // how rare the word (with its forms) is
	Score  float64  `json:"score"`  // its part of Text
}

// Search returns the best facts for q, best first, from the index as it is
// (see FreshSearch). With an embedder it embeds the query while the words
// are scored, and answers by words alone when that fails.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if len(q.Phrasings) > 0 {
		return x.searchPhrasings(ctx, q, x.Search)
	}
	p := parseQuery(q.Words)
	if !p.any {
		return nil, ErrNoWords
	}
	if len(p.words) == 0 {
		return nil, nil // stop words alone
	}
	return x.search(ctx, q, p, nil)
}

// embedder is the embedder of q: its own, else x's.
func (x *Index) queryEmbedder(q Query) Embedder {
	if q.Embedder != nil {
		return q.Embedder
	}
	return x.getEmbedder()
}

// search is Search with the query's embedding, when one is under way.
func (x *Index) search(ctx context.Context, q Query, p parsed, qv *queryVector) ([]Hit, error) {
	e := x.queryEmbedder(q)
	if qv == nil && x.mayHaveVectors(ctx, e) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		qv = embedQuery(ctx, e, q.Words)
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
		hits, err = x.find(ctx, q, p, qv, e)
		x.dropStale(ctx)
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
	if len(q.Phrasings) > 0 {
		return x.searchPhrasings(ctx, q, x.FreshSearch)
	}
	p := parseQuery(q.Words)
	if !p.any {
		return nil, ErrNoWords
	} else if len(p.words) == 0 {
		return nil, nil
	}
	// The query is embedded while the folder is checked and the words
	// scored.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var qv *queryVector
	if e := x.queryEmbedder(q); x.mayHaveVectors(ctx, e) {
		qv = embedQuery(ctx, e, q.Words)
	}
	if !state.Held(x.stateDir, state.DaemonLock) {
		if err := x.Fresh(ctx); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	return x.search(ctx, q, p, qv)
}

// Find is FreshSearch for a command that searches once: it opens the
// index, answers, and closes it. When the index cannot be used — locked
// by another process past the busy timeout, read-only, unopenable — it
// answers from the files (see FindOrScan).
func Find(ctx context.Context, stateDir, memoryDir string, q Query) ([]Hit, error) {
	return FindOrScan(ctx, stateDir, memoryDir, q, nil)
}

// FindOrScan is Find that reports to onFallback (when set) why it answered
// from the files (see scanFind); it fails only when that fails too.
func FindOrScan(ctx context.Context, stateDir, memoryDir string, q Query, onFallback func(error)) ([]Hit, error) {
	hits, err := findIndexed(ctx, stateDir, memoryDir, q)
	if err == nil || errors.Is(err, ErrNoWords) || ctx.Err() != nil {
		return hits, err
	}
	hits, ferr := scanFind(ctx, memoryDir, q)
	if ferr != nil {
		return nil, err
	}
	if onFallback != nil {
		onFallback(err)
	}
	return hits, nil
}

// scanFind answers q from the files alone, with the same ranking: it
// builds a throwaway index of memoryDir in a temporary folder and searches
// it. Words only (no embeddings: every fact would be embedded again), and
// no feedback from the state folder. It costs a full build, about as long
// as `memoryd rebuild` takes.
func scanFind(ctx context.Context, memoryDir string, q Query) ([]Hit, error) {
	tmp, err := os.MkdirTemp("", "memoryd-search-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	x, err := Open(tmp, memoryDir)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	q.Embedder = nil
	return x.FreshSearch(ctx, q)
}

func findIndexed(ctx context.Context, stateDir, memoryDir string, q Query) ([]Hit, error) {
	x, err := Open(stateDir, memoryDir)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	return x.FreshSearch(ctx, q)
}

// parsed is a query as searched.
type parsed struct {
	words []string // its terms, each once, at most maxWords
	last  string   // its last word (a part, not a chunk whole), for the prefix search
	any   bool     // it has a word at all, stop words included
}

// parseQuery cuts what someone typed into terms as text.go cuts a fact.
func parseQuery(s string) parsed {
	s = strings.ToValidUTF8(cut(s, maxQueryBytes), " ")
	p := parsed{any: strings.IndexFunc(s, isWordRune) >= 0}
	seen := make(map[string]bool)
	terms(s, func(t term) bool {
		if !t.whole {
			p.last = t.text
		}
		if !seen[t.text] {
			seen[t.text] = true
			p.words = append(p.words, t.text)
		}
		return len(p.words) < maxWords
	})
	return p
}
