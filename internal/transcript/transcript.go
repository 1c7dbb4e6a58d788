// Package transcript reads the session transcripts of coding agents so that memoryd can extract
// durable facts from them. It knows four sources, each optional and found by [Discover]:
//
//   - "opencode": OpenCode's SQLite database (opencode.db, and one source per opencode-<channel>.db,
//     named "opencode-<channel>"), opened read-only.
//   - "opencode-legacy": the JSON files older OpenCode versions kept under storage/ (used only when
//     no OpenCode database exists, since OpenCode migrates those files into the database).
//   - "claude": Claude Code's JSONL transcripts (<claude dir>/projects/*/*.jsonl).
//   - "codex": Codex rollouts (<codex home>/sessions/**/rollout-*.jsonl).
//
// The package only reads. It decides nothing about when to read: the daemon watches
// [Source.WatchPaths], asks [Source.Changed] which sessions moved, and hands a session and its
// stored [Watermark] to the extractor, which calls [Source.Messages]:
//
//	sources, err := transcript.Discover(transcript.DefaultLocations(home, os.Getenv), opts)
//	// on start-up, on a watch event (debounced) and now and then:
//	sessions, err := src.Changed(ctx, since) // since: the newest Updated seen from src, not the wall clock
//	// for a session that is Finished and idle (or whose LastUserText WantsRemember):
//	msgs, err := src.Messages(ctx, s.ID, mark, 40) // errors.Is(err, ErrSessionGone): forget the session
//	// after the facts are written: mark = msgs[len(msgs)-1].Mark
//
// What a Message holds: user text the person typed (OpenCode's synthetic and ignored parts, and
// context the agent injects, are left out), assistant prose, and for tool calls only the tool's
// name and a short piece of its input — never a tool's output. Compaction summaries are flagged
// ([Message.Summary]): they restate earlier turns, so they are context, not new facts.
//
// Every Source is safe for concurrent use by several goroutines.
package transcript

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
)

// ErrSessionGone is returned (wrapped) by [Source.Messages] when the session no longer exists:
// the user deleted it, or its file was removed. The caller should forget the session's watermark.
var ErrSessionGone = errors.New("session gone")

// Watermark is a position in a session's transcript: everything at or before it has been read.
// The zero Watermark is the start of the session. Watermarks are opaque to callers, who store
// the [Message.Mark] of the last message they consumed and pass it back; they only make sense for
// the source and session they came from.
//
// OpenCode sources order messages by (Time, ID) — message ids alone are not monotonic over time
// — and leave Offset zero. JSONL sources set Offset to the byte just past the message's line and
// Time to the line's timestamp (informational).
type Watermark struct {
	Time   int64  `json:"time,omitempty"`   // OpenCode: message time_created, Unix ms
	ID     string `json:"id,omitempty"`     // OpenCode: message id
	Offset int64  `json:"offset,omitempty"` // JSONL: byte offset just past the line
}

// Session is one agent session as reported by [Source.Changed].
type Session struct {
	Source   string    // the Source's Name
	ID       string    // unique within the source; opaque (JSONL sources: the file's slash path below their root)
	ParentID string    // the parent session of a sub-agent session; "" for top-level sessions
	Dir      string    // working directory, "" if unknown
	Title    string    // "" if the source has none
	Updated  time.Time // last change in the session, as far as the source can tell cheaply
	// Finished reports that the newest message is a finished assistant reply (completed or
	// errored), i.e. the agent is waiting for the user. Idle detection and the "remember" fast
	// path start from it.
	Finished bool
	// LastUserText is the text of the newest user message that has any (synthetic or injected
	// text excluded), for the keyword fast path ([WantsRemember]). Truncated to 4,000 bytes.
	LastUserText string
}

// Message is one user or assistant message, as the extractor consumes it. Messages with neither
// Text nor Tools are never returned.
type Message struct {
	ID      string    // the source's message id ("" where it has none)
	Role    string    // "user" or "assistant"
	Time    time.Time // when the message was created
	Text    string    // prose; text parts joined with "\n"
	Tools   []ToolUse // tool calls made in an assistant message, in order; never their output
	Summary bool      // a compaction summary of earlier turns: context only, not new facts
	Mark    Watermark // pass back to Messages to continue after this message
}

// ToolUse summarises one tool call: which tool, and a short, single-line piece of its input
// (a command, a file path, a pattern, a URL, …) of at most [MaxToolInput] bytes.
type ToolUse struct {
	Name  string
	Input string
}

// MaxToolInput bounds [ToolUse.Input].
const MaxToolInput = 160

// maxLastUserText bounds [Session.LastUserText].
const maxLastUserText = 4000

// Source is one place transcripts come from.
type Source interface {
	// Name is the source's stable name: "opencode", "opencode-<channel>", "opencode-legacy",
	// "claude" or "codex". With a session ID it keys the caller's watermarks.
	Name() string
	// WatchPaths lists existing folders in which activity shows up, for a non-recursive
	// directory watcher. It may grow over time (new project or date folders): ask again
	// after a rescan. Events there are hints; call Changed to learn what moved.
	WatchPaths() []string
	// Changed lists the sessions whose Updated is at or after since (inclusive, so a caller
	// passing the newest Updated it saw misses nothing written in the same millisecond),
	// oldest first. Sub-agent sessions and sessions in Options.SkipDirs are left out.
	// The zero time lists every session.
	Changed(ctx context.Context, since time.Time) ([]Session, error)
	// Messages returns the settled messages after the watermark, oldest first, at most limit
	// of them (limit <= 0: all). It stops before the first message that may still change:
	// an unfinished assistant message, and user messages not yet followed by a finished reply
	// (OpenCode); a line still being written (JSONL). A session that no longer exists gives an
	// error wrapping ErrSessionGone.
	Messages(ctx context.Context, sessionID string, after Watermark, limit int) ([]Message, error)
	// Close releases the source's resources (the database connection). Further calls fail.
	Close() error
}

// Options tune every source.
type Options struct {
	// IncludeSubagents reports sub-agent sessions too (OpenCode sessions with a parent,
	// Claude Code sidechains and agent-*.jsonl files). Off by default: a sub-agent's prompt
	// is written by the agent, not the user.
	IncludeSubagents bool
	// SkipDirs hides sessions whose working directory is one of these folders or inside one,
	// e.g. where the daemon runs its own OpenCode LLM sessions.
	SkipDirs []string
	// BusyTimeout is how long a SQLite read waits for a writer's lock; 0 means 5 s.
	BusyTimeout time.Duration
	// Logger receives warnings about unreadable data; nil discards them.
	Logger *slog.Logger
}

func (o Options) logger(source string) *slog.Logger {
	l := o.Logger
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return l.With("component", "transcript", "source", source)
}

// skipped reports whether a session is hidden by the options.
func (o Options) skipped(parentID, dir string) bool {
	if parentID != "" && !o.IncludeSubagents {
		return true
	}
	return dir != "" && inAny(dir, o.SkipDirs)
}

// inAny reports whether dir is one of roots or inside one of them (lexically, after Clean).
func inAny(dir string, roots []string) bool {
	dir = filepath.Clean(dir)
	for _, r := range roots {
		if r == "" {
			continue
		}
		r = filepath.Clean(r)
		if dir == r || strings.HasPrefix(dir, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
