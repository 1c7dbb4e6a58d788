package search

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"unicode"

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

// Ranking: BM25F. Each query word scores a fact by the counts of the
// word's forms in each field, weighted by fieldWeights and normalised by
// the field's length against the average (fieldB), saturated by k1 and
// multiplied by the word's idf; a fact's text score is the sum over the
// query's words. A form with the word's stem but not the word itself
// ("translation" for "translations") counts stemFactor of an occurrence, so
// the exact form ranks first; a synonym's forms count synonymWeight of the
// word's score, and a word scores a fact by the best of itself and its
// synonyms. The text score is multiplied by the scope's boost: a fact of the
// current project ranks above an equally good global one, and a global one
// above one of another project, while a much better match still wins across
// scopes. Pinned, then newer, facts win ties.
const (
	k1             = 1.2
	stemFactor     = 0.75
	prefixWeight   = 0.5
	boostProject   = 1.5
	boostGlobal    = 1.0
	boostElsewhere = 0.75
)

var (
	// fieldWeights: name and title 2, description and body 1 — the
	// description no longer above the body, which it often only repeats;
	// measured against 3, 3, 2, 1 and all 1 by BenchmarkRecallWeights
	// (docs/PERFORMANCE.md).
	fieldWeights = [numFields]float64{2, 2, 1, 1}
	fieldB       = [numFields]float64{0.5, 0.5, 0.5, 0.75}
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
	Match  string   `json:"match"`  // "exact", "stem", "synonym", "typo", "prefix" or "feedback"
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

// view is what searches read from the index while no other connection
// commits (PRAGMA data_version stays the same) and this one does not
// either (apply drops it): the doc table, and the postings read so far.
type view struct {
	version  int64
	docs     *docTable
	stems    map[string][]*formList // by stem
	postings int                    // postings held in stems
	vectors  *vectors               // read by the first search that fused
	vocab    *vocabulary            // read by the first search with a typo
}

// maxViewPostings bounds the postings a view keeps: past it, it forgets
// them all and reads again what the next searches need.
const maxViewPostings = 4 << 20

// formList is a term's postings, decoded.
type formList struct {
	form string
	ids  []int32
	tfs  []tfs
}

// find returns the true top of the facts q's words match, best first: every
// fact with any of the words is scored.
func (x *Index) find(ctx context.Context, q Query, p parsed, qv *queryVector, e Embedder) ([]Hit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	want := limit // hits asked for
	if qv != nil {
		limit = max(limit, fuseDepth) // the word ranking's depth, to fuse
	}
	conn, err := x.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// One read transaction: the postings, the doc table and the facts'
	// rows are of one version of the index.
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	v, err := x.readView(ctx, conn)
	if err != nil {
		return nil, err
	}
	s := newScorer(v.docs)
	for _, w := range p.words {
		alts, err := x.wordAlts(ctx, conn, v, w)
		if err != nil {
			return nil, err
		}
		s.scoreWord(alts)
	}
	f := newFilter(q)
	top, err := x.passageTop(ctx, conn, s, f, limit)
	if err != nil {
		return nil, err
	}
	if more, err := x.feedback(ctx, conn, v, s, p, top); err != nil {
		return nil, err
	} else if more {
		if top, err = x.passageTop(ctx, conn, s, f, limit); err != nil {
			return nil, err
		}
	}
	var ps *scorer // the prefix search's, for the facts only it found
	// The prefix search fills in when the words find fewer facts than
	// asked for (want), not than the fusion's depth: it reads every term
	// the last word begins.
	if len(top) < want && len(p.last) >= 2 {
		if top, ps, err = x.prefixTop(ctx, conn, v, p.last, f, top, limit); err != nil {
			return nil, err
		}
	}
	if qv != nil {
		fu := fusing{s: s, f: f, mode: cmp.Or(q.Fusion, x.fusion)}
		if vec := x.denseTop(ctx, conn, v, qv, e, &fu); len(vec) > 0 {
			top = fu.fuse(top, vec, want)
		}
	}
	return x.hits(ctx, conn, s, ps, top[:min(want, len(top))], q.Explain)
}

// wordAlts are the forms a query word w is looked for in: its stem, its
// synonyms at their weight and, when none of them is in the index, the
// words a typo away (typoAlts).
func (x *Index) wordAlts(ctx context.Context, conn *sql.Conn, v *view, w string) ([]*alt, error) {
	st := stem(w)
	lists, err := x.stemLists(ctx, conn, v, st)
	if err != nil {
		return nil, err
	}
	alts := []*alt{{word: w, stem: st, exact: w, weight: 1, lists: lists}}
	for _, syn := range synonyms[st] {
		lists, err := x.stemLists(ctx, conn, v, syn)
		if err != nil {
			return nil, err
		}
		alts = append(alts, &alt{word: w, stem: syn, weight: synonymWeight, kind: "synonym", lists: lists})
	}
	if !slices.ContainsFunc(alts, func(a *alt) bool { return len(a.lists) > 0 }) {
		typos, err := x.typoAlts(ctx, conn, v, w)
		if err != nil {
			return nil, err
		}
		alts = append(alts, typos...)
	}
	return alts, nil
}

// prefixTop adds to top, up to limit, the facts with a word that starts
// with last (the word being typed), scored by a scorer of their own, which
// it returns (nil when no word starts so).
func (x *Index) prefixTop(ctx context.Context, conn *sql.Conn, v *view, last string, f filter, top []candidate, limit int) ([]candidate, *scorer, error) {
	lists, err := prefixLists(ctx, conn, last)
	if err != nil || len(lists) == 0 {
		return top, nil, err
	}
	seen := make(map[int32]bool, len(top))
	for _, c := range top {
		seen[c.id] = true
	}
	ps := newScorer(v.docs)
	ps.scoreWord([]*alt{{word: last, weight: prefixWeight, kind: "prefix", lists: lists}})
	more := ps.top(f, limit-len(top), seen)
	for i := range more {
		more[i].prefix = true
	}
	return append(top, more...), ps, nil
}

// hits reads the hits of top, each explained by the scorer that found it:
// s, or ps for the facts only the prefix search found.
func (x *Index) hits(ctx context.Context, conn *sql.Conn, s, ps *scorer, top []candidate, explain bool) ([]Hit, error) {
	hits := make([]Hit, 0, len(top))
	for _, c := range top {
		by := s
		if c.prefix {
			by = ps
		}
		h, err := x.hit(ctx, conn, by, c, explain)
		if err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// readView returns the view of the index for a search on conn, reading
// the doc table again when another connection committed.
func (x *Index) readView(ctx context.Context, conn *sql.Conn) (*view, error) {
	var version int64
	if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
		return nil, err
	}
	if v := x.view; v != nil && v.version == version && v.postings < maxViewPostings {
		return v, nil
	}
	x.view = nil
	var b []byte
	if err := conn.QueryRowContext(ctx, `SELECT data FROM blob WHERE key = 'docs'`).Scan(&b); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	docs, err := decodeDocTable(b)
	if err != nil {
		return nil, err
	}
	x.view = &view{version: version, docs: docs, stems: make(map[string][]*formList)}
	return x.view, nil
}

// stemLists returns the postings of every term with stem st.
func (x *Index) stemLists(ctx context.Context, conn *sql.Conn, v *view, st string) ([]*formList, error) {
	if lists, ok := v.stems[st]; ok {
		return lists, nil
	}
	lists, err := readLists(ctx, conn, `SELECT form, postings FROM term WHERE stem = ?`, st)
	if err != nil {
		return nil, err
	}
	v.stems[st] = lists
	for _, l := range lists {
		v.postings += len(l.ids)
	}
	return lists, nil
}

// prefixLists returns the postings of the terms that begin with prefix
// (maxPrefixes of them at most, the shortest first), prefix itself left
// out: a whole word has been searched already.
func prefixLists(ctx context.Context, conn *sql.Conn, prefix string) ([]*formList, error) {
	return readLists(ctx, conn, `SELECT form, postings FROM term WHERE form > ?1 AND form < ?1 || char(1114111)
		ORDER BY length(form), form LIMIT ?2`, prefix, maxPrefixes)
}

func readLists(ctx context.Context, conn *sql.Conn, query string, args ...any) ([]*formList, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*formList
	for rows.Next() {
		var l formList
		var b []byte
		if err := rows.Scan(&l.form, &b); err != nil {
			return nil, err
		}
		if err := decodePostings(b, func(id int64, tf *tfs) {
			l.ids = append(l.ids, int32(id))
			l.tfs = append(l.tfs, *tf)
		}); err != nil {
			return nil, err
		}
		out = append(out, &l)
	}
	return out, rows.Err()
}

// alt is one way a query word matches: its own stem (exact form first),
// a synonym's, or as a prefix.
type alt struct {
	word, stem, exact string
	weight            float64
	kind              string // "" for the word itself, "synonym", "typo", "prefix", "feedback"
	lists             []*formList
	idf               float64 // set by scoreWord
}

// stemmed reports whether form counts stemFactor of an occurrence for a:
// a form of the word's (or its correction's) stem but not the form itself.
func (a *alt) stemmed(form string) bool {
	return (a.kind == "" || a.kind == "typo") && form != a.exact
}

// scorer adds up the scores of the facts of one search.
type scorer struct {
	docs    *docTable
	total   []float64 // text score by id
	touched []int32   // ids with a score
	word    []float64 // the score of the word being scored, by id
	wordHit []int32
	acc     [][numFields]float64 // weighted counts of the alternative being scored
	accHit  []int32
	words   [][]*alt // every word's alternatives, for Explain
}

func newScorer(docs *docTable) *scorer {
	n := len(docs.docs)
	return &scorer{docs: docs, total: make([]float64, n), word: make([]float64, n), acc: make([][numFields]float64, n)}
}

// idf is BM25's inverse document frequency of a term df facts have.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// saturate is BM25F's term score but for idf, from the field-weighted,
// length-normalised counts of a fact.
func (s *scorer) saturate(id int32, acc *[numFields]float64) float64 {
	d := &s.docs.docs[id]
	tf := 0.0
	for f, n := range acc {
		if n == 0 {
			continue
		}
		norm := 1.0
		if avg := s.docs.avg[f]; avg > 0 {
			norm = 1 - fieldB[f] + fieldB[f]*float64(d.lens[f])/avg
		}
		tf += fieldWeights[f] * n / norm
	}
	return tf * (k1 + 1) / (k1 + tf)
}

// scoreWord adds one query word's score to every fact it matches: the best
// of its alternatives.
func (s *scorer) scoreWord(alts []*alt) {
	s.words = append(s.words, alts)
	for _, a := range alts {
		for _, l := range a.lists {
			factor := 1.0
			if a.stemmed(l.form) {
				factor = stemFactor
			}
			for i, id := range l.ids {
				if int(id) >= len(s.docs.docs) || !s.docs.docs[id].present {
					continue
				}
				acc := &s.acc[id]
				if *acc == ([numFields]float64{}) {
					s.accHit = append(s.accHit, id)
				}
				for f, n := range l.tfs[i] {
					acc[f] += float64(n) * factor
				}
			}
		}
		a.idf = idf(s.docs.count, len(s.accHit))
		for _, id := range s.accHit {
			sc := a.weight * a.idf * s.saturate(id, &s.acc[id])
			if s.word[id] == 0 {
				s.wordHit = append(s.wordHit, id)
			}
			s.word[id] = max(s.word[id], sc)
			s.acc[id] = [numFields]float64{}
		}
		s.accHit = s.accHit[:0]
	}
	for _, id := range s.wordHit {
		if s.total[id] == 0 {
			s.touched = append(s.touched, id)
		}
		s.total[id] += s.word[id]
		s.word[id] = 0
	}
	s.wordHit = s.wordHit[:0]
}

// explain returns what each word adds to the score of fact id, best first.
func (s *scorer) explain(id int32) []TermScore {
	var out []TermScore
	for _, alts := range s.words {
		var best TermScore
		for _, a := range alts {
			var acc [numFields]float64
			var sum tfs
			var forms []string
			for _, l := range a.lists {
				i, ok := slices.BinarySearch(l.ids, id)
				if !ok {
					continue
				}
				factor := 1.0
				if a.stemmed(l.form) {
					factor = stemFactor
				}
				for f, n := range l.tfs[i] {
					acc[f] += float64(n) * factor
					sum[f] += n
				}
				forms = append(forms, l.form)
			}
			if forms == nil {
				continue
			}
			sc := a.weight * a.idf * s.saturate(id, &acc)
			if sc <= best.Score {
				continue
			}
			match := a.kind
			if match == "" {
				match = "stem"
				if slices.Contains(forms, a.exact) {
					match = "exact"
				}
			}
			best = TermScore{Word: a.word, Match: match, Forms: forms, Fields: describeFields(sum), IDF: round3(a.idf), Score: round3(sc)}
		}
		if best.Forms != nil {
			out = append(out, best)
		}
	}
	slices.SortStableFunc(out, func(a, b TermScore) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// filter is a query's scope and type.
type filter struct {
	project, typ string
	all          bool
	versions     bool // superseded facts too
}

func newFilter(q Query) filter {
	return filter{project: strings.TrimSpace(q.Project), typ: strings.ToLower(strings.TrimSpace(q.Type)), all: q.All, versions: q.AllVersions}
}

// boost returns the factor of d's scope, 0 when the query leaves it out.
func (f filter) boost(d *doc) float64 {
	if f.typ != "" && d.typeName != f.typ || d.superseded && !f.versions {
		return 0
	}
	switch {
	case d.projectName == f.project:
		return boostProject
	case d.projectName == "":
		return boostGlobal
	case f.all:
		return boostElsewhere
	}
	return 0
}

// candidate is a fact scored, before its row is read.
type candidate struct {
	id      int32
	score   float64
	text    float64
	boost   float64
	prefix  bool
	passage float64 // the best passage's score, when scored (passage.go)
	fusion  *Fusion // set when fused
}

// better orders candidates best first: score, then pinned, then newer,
// then the lower row id.
func (s *scorer) better(a, b candidate) int {
	da, db := &s.docs.docs[a.id], &s.docs.docs[b.id]
	return cmp.Or(cmp.Compare(b.score, a.score), boolCompare(db.pinned, da.pinned),
		cmp.Compare(db.updated, da.updated), cmp.Compare(a.id, b.id))
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// top returns the best k facts scored that f lets through, leaving out
// those in skip, best first.
func (s *scorer) top(f filter, k int, skip map[int32]bool) []candidate {
	// A heap of the best k so far, the worst of them at the root.
	h := make([]candidate, 0, k)
	worse := func(i, j int) bool { return s.better(h[i], h[j]) > 0 }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && worse(r, l) {
				l = r
			}
			if !worse(l, i) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for _, id := range s.touched {
		if skip[id] {
			continue
		}
		b := f.boost(&s.docs.docs[id])
		if b == 0 {
			continue
		}
		c := candidate{id: id, score: s.total[id] * b, text: s.total[id], boost: b}
		if len(h) < k {
			h = append(h, c)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(i, p) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if k > 0 && s.better(c, h[0]) < 0 {
			h[0] = c
			down(0)
		}
	}
	slices.SortFunc(h, s.better)
	return h
}

// hit reads the row of candidate c and makes its Hit.
func (x *Index) hit(ctx context.Context, conn *sql.Conn, s *scorer, c candidate, explain bool) (Hit, error) {
	d := &s.docs.docs[c.id]
	h := Hit{Score: round3(c.score), Type: d.typeName, Project: d.projectName}
	var body string
	err := conn.QueryRowContext(ctx, `SELECT file, name, title, description, body, superseded_by FROM fact WHERE id = ?`, c.id).
		Scan(&h.File, &h.Name, &h.Title, &h.Description, &body, &h.SupersededBy)
	if err != nil {
		return h, fmt.Errorf("read fact %d: %w", c.id, err)
	}
	stems := make(map[string]bool)
	for _, alts := range s.words {
		for _, a := range alts {
			for _, l := range a.lists {
				if _, ok := slices.BinarySearch(l.ids, c.id); ok {
					stems[stem(l.form)] = true
				}
			}
		}
	}
	h.Snippet = snippet(body, stems)
	if explain {
		h.Explain = &Explanation{Terms: s.explain(c.id), Text: round3(c.text), Boost: c.boost,
			Pinned: d.pinned, Updated: d.updatedDate(), Prefix: c.prefix, Passage: round3(c.passage), Fusion: c.fusion}
	}
	return h, nil
}

// snippet returns the words of body around its best match — where most of
// the matched stems are close together — or its start when none is there,
// on one line of at most snippetBytes.
func snippet(body string, stems map[string]bool) string {
	if whole := oneLine(body, snippetBytes); !strings.HasSuffix(whole, "…") || len(stems) == 0 {
		return whole
	}
	type match struct {
		at   int
		stem string
	}
	var found []match
	terms(body, func(t term) bool {
		if st := stem(t.text); stems[st] {
			found = append(found, match{t.start, st})
		}
		return len(found) < 1000
	})
	if len(found) == 0 {
		return oneLine(body, snippetBytes)
	}
	best, bestN := 0, 0
	for i := range found {
		seen := make(map[string]bool)
		for j := i; j < len(found) && found[j].at < found[i].at+snippetBytes/2; j++ {
			seen[found[j].stem] = true
		}
		if len(seen) > bestN {
			best, bestN = i, len(seen)
		}
	}
	// Start a few words before the match, at the start of a word.
	start := found[best].at
	if back := max(0, start-40); back > 0 {
		if i := strings.IndexFunc(body[back:start], unicode.IsSpace); i >= 0 {
			start = back + i + 1
		}
	} else {
		start = 0
	}
	if start == 0 {
		return oneLine(body, snippetBytes)
	}
	return "…" + oneLine(body[start:], snippetBytes-len("…"))
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
		if b.Len() > 2*n+8 {
			break
		}
	}
	out := b.String()
	if len(out) <= n {
		return out
	}
	return strings.TrimRight(cut(out, n-len("…")), " ") + "…"
}
