// Package mcpserver is `memoryd mcp`: the memory as a Model Context
// Protocol server on stdio, with four tools — memory_search, memory_read,
// memory_save, memory_forget — that every agent (OpenCode, Claude Code,
// Codex) can call. It is an adapter, like the command line: each handler
// decodes the call, calls one package function (search, facts, index) and
// encodes the answer. Problems are tool errors the model can act on, never
// a crash; nothing is read until a tool is called, so the server starts at
// once however large the store is.
package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/usage"
)

// Hit is one search result, as the model sees it.
type Hit struct {
	File, Title, Description, Project, Snippet string
	SupersededBy                               string // with Query.AllVersions: the fact that replaced this one
	Team                                       string // a team fact: who added it ("team, added by Ann in 1a2b3c4")
}

// Query is a memory_search: words as typed and other phrasings of the
// same need (Phrasings, to be fused into one ranking), the project to rank
// first (All: every project, else the global facts and this project's),
// an optional type, at most Limit hits; AllVersions returns superseded
// facts too.
type Query struct {
	Words, Project string
	Phrasings      []string
	All            bool
	Type           string
	Limit          int
	AllVersions    bool
}

// SearchFunc searches the memory.
type SearchFunc func(ctx context.Context, q Query) ([]Hit, error)

// Options configure the server.
type Options struct {
	Dir     string // the memory folder
	Project string // the slug of the server's working directory ("" none)
	Root    string // the root of that directory's project: memory_save's cites are relative to it
	// Cites checks the files facts cite, to mark a fact that may be
	// stale in memory_search and memory_read; nil checks nothing.
	Cites   *cite.Checker
	Version string
	Search  SearchFunc
	// Writer saves and forgets; its Who is replaced by the client's name
	// from the MCP handshake for each call.
	Writer func(who string) *facts.Writer
	// Used, when set, counts the facts a search returned and a read gave
	// (package usage); it must not fail or block.
	Used func(kind usage.Kind, files ...string)
	// Gate decides what of each fact memory_search and memory_read give:
	// no secret, no planted instruction a person has not confirmed. nil
	// is a gate with no confirmations.
	Gate *folder.Gate
	// Team is the team memory of the server's project (team.go); its
	// zero value has none.
	Team Team
}

// New returns the server with its four tools.
func New(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "memoryd", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "The user's long-term memory: facts about them, how they like to work, their projects, " +
			"and where things are. Search it before assuming; save a fact only when it will still matter in a later session.",
	})
	if o.Gate == nil {
		o.Gate = folder.NewGate("")
	}
	h := &handlers{o: o}
	mcp.AddTool(s, &mcp.Tool{
		Name: "memory_search",
		Description: "Search the user's long-term memory for facts (preferences, how they work, project decisions, where things are). " +
			"Use it before asking the user something they may have said before, and when the memory index mentions facts that are not listed. " +
			"Search is by words, not meaning: give two or three phrasings of what you need in queries (the question as you would ask it, " +
			"and the words the fact itself would likely use), and they are searched together. " +
			"Returns the best matches: file, title, description and a snippet; read a file with memory_read for the whole fact.",
		Annotations: &mcp.ToolAnnotations{Title: "Search memory", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, h.search)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "memory_read",
		Description: "Read one fact of the user's long-term memory in full, by its file name (from memory_search or the memory index) or its name.",
		Annotations: &mcp.ToolAnnotations{Title: "Read a memory", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, h.read)
	mcp.AddTool(s, &mcp.Tool{
		Name: "memory_save",
		Description: "Save one durable fact to the user's long-term memory: something that will still be true and useful in a later session " +
			"(a preference, a correction the user gave, a project decision and why, where something is). One fact per call; never secrets. " +
			"An existing fact is replaced only with replace=true. When the new fact makes an older one untrue, name the older one in supersedes: " +
			"it leaves the index and search but stays readable. Facts about one repository get its project (the default for type project).",
		Annotations: &mcp.ToolAnnotations{Title: "Save a memory", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, h.save)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "memory_forget",
		Description: "Delete one fact from the user's long-term memory that is no longer true or useful, with the reason (kept in the history, where it can be undone).",
		Annotations: &mcp.ToolAnnotations{Title: "Forget a memory", DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, h.forget)
	return s
}

func ptr[T any](v T) *T { return &v }

// SearchIn are memory_search's arguments.
type SearchIn struct {
	Query   string   `json:"query,omitempty" jsonschema:"words to look for, as you would type them into a search box"`
	Queries []string `json:"queries,omitempty" jsonschema:"two or three phrasings of the same need, e.g. [\"which server do we deploy staging to\", \"staging host\"]: each is searched and the results are fused into one ranking"`
	Project string   `json:"project,omitempty" jsonschema:"a project slug to search (default: the current project and the global facts); 'all' searches every project"`
	Type    string   `json:"type,omitempty" jsonschema:"only facts of this type: user, feedback, project or reference"`
	Limit   int      `json:"limit,omitempty" jsonschema:"at most this many results (default 10, at most 50)"`
	// AllVersions: superseded facts too, each marked with what replaced it.
	AllVersions bool `json:"all_versions,omitempty" jsonschema:"also return facts a newer one superseded (history: no longer current), each marked with the fact that replaced it"`
}

// ReadIn are memory_read's arguments.
type ReadIn struct {
	File string `json:"file" jsonschema:"the fact's file name, e.g. feedback-prefers-tabs.md, or its name"`
}

// SaveIn are memory_save's arguments.
type SaveIn struct {
	Type        string   `json:"type" jsonschema:"user (about the person), feedback (how they want you to work), project (a decision or fact about a project), reference (where something is)"`
	Name        string   `json:"name" jsonschema:"short kebab-case name, e.g. prefers-tabs; the file is TYPE-NAME.md"`
	Description string   `json:"description" jsonschema:"one line that says the fact, shown in the memory index"`
	Body        string   `json:"body" jsonschema:"the fact, and why (Why: ...) when known; a few lines"`
	Project     string   `json:"project,omitempty" jsonschema:"the project slug when the fact only holds in one repository; 'global' for none"`
	Replace     bool     `json:"replace,omitempty" jsonschema:"replace an existing fact of the same type and name"`
	Cites       []string `json:"cites,omitempty" jsonschema:"the files the fact rests on, as paths relative to the project's root (optionally path#symbol); memoryd records their versions and marks the fact as possibly stale when they change"`
	Scope       string   `json:"scope,omitempty" jsonschema:"'team' proposes the fact for the project's team memory (its .memory/ folder, checked in with the code, read by every teammate's agent): a person reviews and accepts it; leave it out for the user's own memory"`
	Supersedes  string   `json:"supersedes,omitempty" jsonschema:"the file or name of an older fact this one replaces because it is no longer true; it is kept, marked superseded, out of the index and search"`
}

// ForgetIn are memory_forget's arguments.
type ForgetIn struct {
	File   string `json:"file" jsonschema:"the fact's file name or name"`
	Reason string `json:"reason" jsonschema:"why it is no longer true or useful"`
}

type handlers struct{ o Options }

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// used counts a use of files when the server was given a counter.
func (h *handlers) used(kind usage.Kind, files ...string) {
	if h.o.Used != nil {
		h.o.Used(kind, files...)
	}
}

func (h *handlers) search(ctx context.Context, req *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, any, error) {
	var phrasings []string
	for _, p := range append([]string{in.Query}, in.Queries...) {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(phrasings, p) {
			phrasings = append(phrasings, p)
		}
	}
	if len(phrasings) == 0 {
		return nil, nil, fmt.Errorf("query is empty: give a few words to look for (query, or two or three phrasings in queries)")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	project, all := h.o.Project, false
	switch in.Project {
	case "":
	case "all":
		all = true
	default:
		project = in.Project
	}
	q := Query{Words: phrasings[0], Phrasings: phrasings[1:], Project: project, All: all, Type: in.Type, Limit: min(limit, 50), AllVersions: in.AllVersions}
	hits, err := h.o.Search(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	hits = append(h.gated(hits), h.teamHits(ctx, q)...)
	if len(hits) == 0 {
		return text("No facts match " + quote(strings.Join(phrasings, " / ")) + ". Try other words, or project \"all\"."), nil, nil
	}
	var files []string
	for _, hit := range hits {
		if hit.Team == "" { // usage counts the person's facts
			files = append(files, hit.File)
		}
	}
	h.used(usage.Search, files...)
	var b strings.Builder
	for _, hit := range hits {
		fmt.Fprintf(&b, "- %s — %s: %s", hit.File, hit.Title, hit.Description)
		switch {
		case hit.Team != "":
			fmt.Fprintf(&b, " [%s]", hit.Team)
		case hit.Project != "":
			fmt.Fprintf(&b, " [project %s]", hit.Project)
		}
		if note := h.stale(hit.File); note != "" {
			fmt.Fprintf(&b, " (%s)", note)
		}
		if hit.SupersededBy != "" {
			fmt.Fprintf(&b, " (superseded by %s: no longer current)", hit.SupersededBy)
		}
		if hit.Snippet != "" {
			fmt.Fprintf(&b, "\n  %s", hit.Snippet)
		}
		b.WriteString("\n")
	}
	return text(b.String()), nil, nil
}

func (h *handlers) read(ctx context.Context, req *mcp.CallToolRequest, in ReadIn) (*mcp.CallToolResult, any, error) {
	if rel, ok := h.o.Team.rel(in.File); ok {
		return h.readTeam(rel)
	}
	if name := strings.TrimSpace(in.File); index.IsIndex(name) {
		// The indexes context shows ("MEMORY.alpha-app.md") read by name.
		data, err := index.ReadPlain(h.o.Dir, name)
		if err != nil {
			return nil, nil, fmt.Errorf("%w %s: that index is not there (memoryd rebuild writes it)", facts.ErrNotFound, quote(name))
		}
		return text("# " + name + "\n" + string(data)), nil, nil
	}
	snap, err := index.Scan(h.o.Dir)
	if err != nil {
		return nil, nil, err
	}
	m, err := facts.Find(snap, in.File)
	if err != nil {
		return nil, nil, err
	}
	d, m := h.o.Gate.DecideFile(folder.RoadMCP, h.o.Dir, m.File, "")
	if d.Verdict == folder.Hold {
		return nil, nil, fmt.Errorf("%s", d.Reason)
	}
	data := d.Text
	h.used(usage.Read, m.File)
	head := "# " + m.File + "\n"
	if m.Superseded() {
		head += "# Superseded by " + m.SupersededBy + " on " + m.SupersededAt + ": no longer current; read that one\n"
	}
	if note := h.stale(m.File); note != "" {
		head += "# " + note + ": read the cited files before relying on it\n"
	}
	if d.Verdict == folder.Redact {
		head += "# " + d.Reason + "\n"
	}
	return text(head + data), nil, nil
}

// gated is hits less what the gate holds from agents, a fact with a
// secret given with its title and description redacted and no snippet.
func (h *handlers) gated(hits []Hit) []Hit {
	out := hits[:0]
	for _, hit := range hits {
		d, m := h.o.Gate.DecideFile(folder.RoadMCP, h.o.Dir, hit.File, "")
		switch d.Verdict {
		case folder.Hold:
			continue
		case folder.Redact:
			hit.Title, hit.Description, hit.Snippet = index.TitleOf(d.Title, m.Name, m.File), d.Description, ""
		}
		out = append(out, hit)
	}
	return out
}

// stale is the marker of the fact in file when its cited files changed
// since it was written or confirmed, else "".
func (h *handlers) stale(file string) string {
	if h.o.Cites == nil {
		return ""
	}
	return cite.Marker(h.o.Cites.File(h.o.Dir, file).Changes)
}

func (h *handlers) save(ctx context.Context, req *mcp.CallToolRequest, in SaveIn) (*mcp.CallToolResult, any, error) {
	if in.Scope == "team" {
		return h.propose(ctx, req, in)
	}
	f := facts.Fact{Type: in.Type, Name: in.Name, Description: in.Description, Body: in.Body, Project: in.Project,
		Cites: in.Cites, CiteFrom: h.o.Root}.Scoped(h.o.Project)
	w := h.o.Writer(client(req))
	if old := strings.TrimSpace(in.Supersedes); old != "" {
		if in.Replace {
			return nil, nil, fmt.Errorf("give replace or supersedes, not both: replace overwrites the fact of the same name, supersedes keeps the older one beside the new")
		}
		d, err := w.Supersede(ctx, f, old)
		if err != nil {
			return nil, nil, err
		}
		return text(fmt.Sprintf("%s %s; %s is superseded by it (kept, out of the index and search).", d.Action, d.File, d.Superseded)), nil, nil
	}
	d, err := w.Save(ctx, f, in.Replace)
	if err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("%s %s.", d.Action, d.File)), nil, nil
}

func (h *handlers) forget(ctx context.Context, req *mcp.CallToolRequest, in ForgetIn) (*mcp.CallToolResult, any, error) {
	// An agent never deletes what git does not keep: a fact git ignores
	// cannot be brought back, so only a person may forget it (--force).
	d, err := h.o.Writer(client(req)).Forget(ctx, in.File, in.Reason, false)
	if err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("forgot %s; it can be undone from the history.", d.File)), nil, nil
}

// client names the calling agent from the MCP handshake, for provenance
// and commit messages: "mcp: claude-code".
func client(req *mcp.CallToolRequest) string {
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return "mcp: " + index.CleanText(p.ClientInfo.Name, false, 60)
		}
	}
	return "mcp"
}
