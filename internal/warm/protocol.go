// Package warm lets every reader of a memory folder — `memoryd search`,
// `memoryd recall`, each `memoryd mcp` server — ask the daemon's search
// index, warm in its memory and kept current by its watcher, instead of
// opening the index file and checking the folder itself.
//
// The daemon listens on a unix socket in the folder's state folder
// (state.WarmSocket: the socket mode 0600, the folder 0700, so only the
// user can connect). A reader sends one line of JSON, a Request, and reads
// one line back, a Response. Whenever there is no answer to be had — no
// socket, nobody listening, another build of memoryd, the daemon still
// building its first index, no answer within Timeout — Ask returns an error
// matching ErrUnavailable and the reader opens the index itself as it did
// before (search.FindOrScan). The daemon's answer is hits as search.Index
// returns them: what a reader then shows, and what it must hold back, is
// still the reader's to decide (folder.Gate), as on its own path.
package warm

import (
	"errors"
	"time"

	"github.com/memoryd/memoryd/internal/search"
)

// Protocol is the version of the wire format; a Request of another version
// is refused, and so is one from another build of memoryd.
const Protocol = 1

// Timeout is how long Ask waits for the daemon's answer before the reader
// searches alone. A warm search takes a few milliseconds; a daemon that
// takes longer is busy or stuck, and the reader's own path is quicker.
const Timeout = 1500 * time.Millisecond

// maxLine bounds a Request or Response line: a query is at most a few
// kilobytes, an answer at most search.MaxLimit hits with snippets and
// explanations.
const maxLine = 4 << 20

// ErrUnavailable is returned by Ask when the daemon cannot answer: the
// reader searches by itself.
var ErrUnavailable = errors.New("no warm search index to ask")

// Request is one search, as a line of JSON.
type Request struct {
	Protocol  int    `json:"protocol"`
	Version   string `json:"version"` // the build of memoryd asking
	MemoryDir string `json:"memoryDir"`
	Query     Query  `json:"query"`
}

// Query is search.Query without the embedder: the daemon embeds with its
// own.
type Query struct {
	Words       string   `json:"words"`
	Phrasings   []string `json:"phrasings,omitempty"`
	Project     string   `json:"project,omitempty"`
	All         bool     `json:"all,omitempty"`
	Type        string   `json:"type,omitempty"`
	AllVersions bool     `json:"allVersions,omitempty"`
	Limit       int      `json:"limit,omitempty"`
	Explain     bool     `json:"explain,omitempty"`
	Fusion      string   `json:"fusion,omitempty"` // the reader's embed.fusion; "" the daemon's
}

// Response is the answer to one Request, as a line of JSON.
type Response struct {
	Hits []search.Hit `json:"hits"`
	// Code says why there are no hits: "" when the search ran,
	// codeNoWords for search.ErrNoWords, otherwise the reason the daemon
	// does not answer (the reader then searches alone).
	Code  string `json:"code,omitempty"`
	Error string `json:"error,omitempty"` // in words, for the reader's log
}

// Response codes.
const (
	codeNoWords  = "no-words"  // search.ErrNoWords
	codeVersion  = "version"   // another protocol or build
	codeFolder   = "folder"    // another memory folder
	codeWarming  = "warming"   // the daemon's first index is not built yet
	codeFailed   = "failed"    // the search failed in the daemon
	codeBadInput = "bad-input" // not a Request
)

func toWire(q search.Query) Query {
	return Query{Words: q.Words, Phrasings: q.Phrasings, Project: q.Project, All: q.All, Type: q.Type,
		AllVersions: q.AllVersions, Limit: q.Limit, Explain: q.Explain, Fusion: q.Fusion}
}

func (q Query) search() search.Query {
	return search.Query{Words: q.Words, Phrasings: q.Phrasings, Project: q.Project, All: q.All, Type: q.Type,
		AllVersions: q.AllVersions, Limit: q.Limit, Explain: q.Explain, Fusion: q.Fusion}
}
