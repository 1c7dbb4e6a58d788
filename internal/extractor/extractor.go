// Package extractor runs one extraction pass over one agent session: it
// reads the messages after the session's watermark, asks the LLM which
// durable facts they hold, puts every proposal through a quality gate, writes
// the memory files, rebuilds MEMORY.md, commits, and only then advances the
// watermark.
//
// A pass plans without the write lock — the scan, the prompt, the model call
// and the gate — and only then writes through the folder's write
// transaction (package txn): Begin, the re-check of every file against the
// version the plan read (content hash), the writes, the commit. A person's
// or an agent's write never waits for the model.
//
// A pass is bounded: at most Options.MaxMessages messages (the newest, when
// more are new) and Options.MaxTranscript characters of transcript, with the
// existing memories' bodies as context up to Options.MaxContext characters
// (the rest by their index line). The folder's PROTOCOL.md is the model's
// rulebook.
//
// Privacy and quality: secrets are redacted from the transcript before it is
// sent (see Redact); messages in which the user asks that something not be
// remembered are withheld, with the assistant's reply; a proposed memory is
// rejected when it still holds a secret, is a raw error or stack trace,
// names a commit hash, is mostly file paths or is too short; it is dropped
// when an existing file already holds its canonical text; an update of a
// readonly file is refused; names are made safe.
//
// Crash safety: the watermark moves only after the commit (or when there was
// nothing to write). A pass interrupted between its commit and the watermark
// runs again; the same proposals then change nothing, because a create of an
// existing file is an update of it and an update to the same text is no
// change.
//
// The extractor decides nothing about when to run: the daemon calls Extract
// for a session it found idle.
package extractor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/protocol"
	"github.com/memoryd/memoryd/internal/transcript"
)

// Default bounds of one pass (the design's figures).
const (
	DefaultMaxMessages   = 40
	DefaultMaxTranscript = 24000
	DefaultMaxContext    = 12000
)

// ErrNothingToDo is returned (possibly wrapped) by Extract when the session
// has no new messages, or no longer exists. No LLM call was made.
var ErrNothingToDo = errors.New("nothing new to extract")

// Repo is what a pass asks of the notes repository besides the
// transaction (which checks it and commits): the reads (gitstore.Repo).
type Repo interface {
	Ignored(ctx context.Context, paths []string) (map[string]bool, error)
}

// Options configure an Extractor. Zero bounds take the defaults.
type Options struct {
	// Folder is the memory folder's write transaction, the only way a pass
	// writes and commits; the pass also plans from its folder.
	Folder   *folder.Folder
	StateDir string // the folder's state directory: the watermarks
	Model    string // "provider/model"

	MaxMessages   int // messages per pass
	MaxTranscript int // characters of transcript per pass
	MaxContext    int // characters of existing memory bodies per pass

	// Who names this process in the write lock ("memoryd run"); "" gives
	// "memoryd extraction".
	Who    string
	Logger *slog.Logger
	// Review reports whether a fact of a type waits in the inbox for a
	// person (extract.review); nil means none does.
	Review func(typ string) bool
	// Since leaves out the sessions last active before it (extract.since;
	// zero: none); Exclude the agents and project folders never extracted
	// (extract.exclude, read by SplitExclude). See scope.go.
	Since   time.Time
	Exclude []string
	// Hold, when set, leaves out of the prompt's existing memories the
	// facts the gate on the way out holds from a model
	// (folder.Gate.Holds(folder.RoadExtraction)).
	Hold func(*index.Memory) bool
	// Team, when set, is the team memory of a session's working
	// directory, nil when its project has none: there the model may mark
	// a fact about the repository for the team, and it becomes a proposal
	// in the inbox (toTeam). Extraction never writes a team's folder.
	Team func(dir string) *Team
}

// Deps are what an Extractor talks to.
type Deps struct {
	LLM     llm.Completer
	Repo    Repo
	Sources *transcript.Sources
}

// Extractor runs extraction passes. Its methods are safe for concurrent use;
// passes run one at a time.
type Extractor struct {
	opts Options
	dir  string // the memory folder
	deps Deps
	log  *slog.Logger

	pass sync.Mutex // one pass at a time in this process; guards store
	// store is the parsed memory files, reused between passes so that a
	// pass parses only what changed. Planning only scans it; the
	// transaction writes.
	store *index.Store

	marksMu sync.Mutex // serializes edits of the watermarks file in this process

	dirMu sync.Mutex
	dirs  map[string]string // session key → working directory, learnt from listings
}

// New returns an Extractor; it starts nothing.
func New(opts Options, deps Deps) *Extractor {
	if opts.MaxMessages <= 0 {
		opts.MaxMessages = DefaultMaxMessages
	}
	if opts.MaxTranscript <= 0 {
		opts.MaxTranscript = DefaultMaxTranscript
	}
	if opts.MaxContext <= 0 {
		opts.MaxContext = DefaultMaxContext
	}
	if opts.Who == "" {
		opts.Who = "memoryd extraction"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := opts.Folder.Dir()
	return &Extractor{opts: opts, dir: dir, deps: deps, log: log.With("component", "extractor"),
		store: opts.Folder.NewStore(), dirs: map[string]string{}}
}

// Result describes one pass.
type Result struct {
	Source, Session string
	Messages        int         // new messages after the watermark
	Sent            int         // messages shown to the model (0: no LLM call)
	Redacted        int         // secrets redacted from what was sent
	Withheld        int         // messages withheld because the user asked
	Changes         []Change    // files written (in a dry run: that would be)
	Rejected        []Rejection // proposals refused by the gate, or that changed nothing
	Commit          string      // the commit made, "" if none
	Tokens          int         // tokens of the model call (as reported, else estimated)
}

// Extract runs one pass over a session and returns what it wrote. It returns
// an error matching ErrNothingToDo, without calling the LLM, when there is
// nothing new after the watermark; when the session is gone (the error also
// matches transcript.ErrSessionGone) its watermark is dropped. Any other
// error leaves the watermark where it was, so the pass can run again.
func (x *Extractor) Extract(ctx context.Context, source, id string) (Result, error) {
	return x.run(ctx, source, id, false)
}

// DryRun is Extract without any write: the same pass on a dry-run
// transaction (folder.Folder.BeginDryRun), so no memory file, no commit,
// no watermark. Result.Changes holds what Extract would write now.
func (x *Extractor) DryRun(ctx context.Context, source, id string) (Result, error) {
	return x.run(ctx, source, id, true)
}

func (x *Extractor) run(ctx context.Context, source, id string, dry bool) (Result, error) {
	x.pass.Lock()
	defer x.pass.Unlock()
	start := time.Now()
	res, err := x.runLocked(ctx, source, id, dry)
	log := x.log.With("source", source, "session", id, "messages", res.Messages, "sent", res.Sent,
		"written", len(res.Changes), "rejected", len(res.Rejected), "duration", time.Since(start).Round(time.Millisecond))
	switch {
	case errors.Is(err, ErrNothingToDo):
		log.Debug("nothing to extract", "reason", err)
	case errors.Is(err, context.Canceled):
		// Stopped (memoryd is shutting down, or the command was
		// interrupted): how work ends, not a problem.
		log.Info("extraction stopped", "err", err)
	case err != nil:
		log.Warn("extraction failed", "err", err)
	default:
		for _, r := range res.Rejected {
			log.Info("proposal rejected", "name", r.Name, "reason", r.Reason)
		}
		log.Info("extracted", "dry_run", dry, "commit", res.Commit)
	}
	return res, err
}

func (x *Extractor) runLocked(ctx context.Context, source, id string, dry bool) (Result, error) {
	res := Result{Source: source, Session: id}
	key := Key(source, id)
	b, err := x.readSession(ctx, source, id, dry)
	if err != nil {
		return res, err
	}
	res.Messages = b.total
	if len(b.msgs) == 0 {
		return res, ErrNothingToDo
	}
	tr := renderTranscript(b.msgs, x.opts.MaxTranscript)
	res.Redacted, res.Withheld = tr.redacted, tr.withheld
	if tr.userShown == 0 {
		// Nothing the user said is in view: the model could only echo the
		// assistant. Move on without a call.
		return x.apply(ctx, res, key, b.mark, dry)
	}
	// The plan is made without the write lock; the transaction re-checks
	// what it read (Change.prev) before writing.
	if err := x.store.Scan(); err != nil {
		return res, fmt.Errorf("read memory folder: %w", err)
	}
	snap := x.store.Snapshot()
	shown := snap
	if x.opts.Hold != nil {
		shown = snap.Without(x.opts.Hold)
	}
	mem := buildContext(shown.Memories, tr.text, x.opts.MaxContext)
	dir := x.project(ctx, source, id)
	tm := x.team(dir)
	res.Sent = tr.shown
	props, err := x.ask(ctx, &res, userPrompt(dir, tm != nil, mem, tr, b.total), tm != nil)
	if err != nil {
		return res, err
	}
	res.Changes, res.Rejected = plan(props, snap, mem.shown)
	stamp(res.Changes, source, id, dir, b.msgs, time.Now())
	if len(res.Rejected) > 0 {
		x.log.Info("proposals not written", "session", key, "rejected", len(res.Rejected))
	}
	if err := x.route(ctx, snap, tm, &res); err != nil {
		return res, err
	}
	return x.apply(ctx, res, key, b.mark, dry)
}

// ask sends prompt to the model and parses its proposals, counting the
// tokens in res. Where the repository has no team memory (team false), a
// fact proposed for the team is the person's.
func (x *Extractor) ask(ctx context.Context, res *Result, prompt string, team bool) ([]Proposal, error) {
	req := llm.Request{
		Task: "extract", Model: x.opts.Model, JSON: true,
		System: systemPrompt(protocol.Load(x.dir)),
		Prompt: prompt,
	}
	resp, err := x.deps.LLM.Complete(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("ask the model: %w", err)
	}
	res.Tokens = resp.Tokens(req)
	props, err := ParseAnswer(resp.Text)
	if err != nil {
		return nil, err
	}
	if !team {
		for i := range props {
			props[i].Scope = ""
		}
	}
	return props, nil
}

// route sends each planned change of res where it goes (route.go): left
// out when git ignores its file, kept from a hand-written line, to the
// inbox, to the team's proposals (tm, nil without team memory), marked
// superseding.
func (x *Extractor) route(ctx context.Context, snap index.Snapshot, tm *Team, res *Result) error {
	if err := x.dropIgnored(ctx, res); err != nil {
		return err
	}
	if err := x.keepHandLines(ctx, snap, res); err != nil {
		return err
	}
	x.toInbox(snap, res)
	if tm != nil {
		if err := toTeam(ctx, tm, snap, res); err != nil {
			return err
		}
	}
	supersessions(res)
	return nil
}

// team is the team memory of the session's working directory dir, nil
// for none.
func (x *Extractor) team(dir string) *Team {
	if x.opts.Team == nil || dir == "" {
		return nil
	}
	return x.opts.Team(dir)
}
