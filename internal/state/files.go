package state

import (
	"fmt"
	"os"
)

// The files of a state folder, every one named here.
const (
	// WriteLock is the lock file every git writer of a memory folder holds
	// while it writes and commits: the daemon's commits, compaction,
	// extraction and undo, in any process. One writer at a time per folder.
	WriteLock = "memory.lock"
	// DaemonLock is held by the one `memoryd run` of a folder.
	DaemonLock = "daemon.lock"
	// StatusFile is what the daemon publishes for `memoryd status`.
	StatusFile = "status.json"
	// CompactionFile holds Compaction.
	CompactionFile = "compaction.json"
	// WatermarksFile holds every agent session's extraction watermark.
	WatermarksFile = "extract-watermarks.json"
	// TokensFile holds Tokens, the ledger of the tokens every LLM call
	// spent, per day and task.
	TokensFile = "tokens.json"
	// LogFile is the log every `memoryd run` writes beside its standard
	// error, read by `memoryd logs`; it is rotated to LogFile+".1".
	LogFile = "daemon.log"
	// SearchFile is the SQLite full-text index of the memory files, a
	// cache that package search rebuilds from the files whenever it is
	// missing, stale or corrupt. Beside it live SQLite's own SearchFile+"-wal"
	// and SearchFile+"-shm", and SearchFile+".lock", held only while a
	// corrupt index is replaced.
	SearchFile = "search.db"
	// WarmSocket is the unix socket on which a running daemon answers
	// searches from its warm index (package warm); it exists only while
	// the daemon listens.
	WarmSocket = "warm.sock"
	// CitedFile maps the files of projects to the facts about them
	// (package cited), written by the daemon after each sync of its
	// search index, read by the tool-call hook.
	CitedFile = "cited.json"
	// UsageLog is package usage's append-only log of the facts agents used,
	// one line a use; UsageSummary holds what earlier folds of it counted.
	// Beside them: UsageLog+".folding" (a log being folded) and
	// UsageLog+".lock" (shared by writers and readers, exclusive for a fold).
	UsageLog     = "usage.log"
	UsageSummary = "usage.summary"
	// ModelCheckFile is what `memoryd doctor` last learnt of the model
	// provider (the models it offers, OpenCode's own model), kept a day so
	// that doctor stays fast; `doctor --fresh` asks again.
	ModelCheckFile = "doctor-model.json"
	// FirstRunFile records when memoryd first ran for the folder (install
	// starts the daemon): extraction takes the sessions active since then
	// unless extract.since says otherwise (FirstRun).
	FirstRunFile = "first-run.json"
	// SyncReviewFile records, per inbox file sync made from this
	// machine's version of a fact the remote changed too, this machine's
	// host and the remote's (gitsync.ReviewOrigins).
	SyncReviewFile = "sync-review.json"
	// NoManagerFile records that `memoryd install` explained once how
	// memoryd runs where there is no per-user service manager; later
	// installs say it in one line.
	NoManagerFile = "install-no-manager"
	// VerdictsFile holds the keys of the texts (index lines, facts) the
	// secret and planted-instruction detectors found clean, so that a
	// one-shot command runs them only on what changed (package verdicts).
	// Tied to the binary that wrote it; any process may replace it.
	VerdictsFile = "verdicts"
)

// Owner is the text a lock holder writes about itself, read by whoever the
// lock refuses: "pid 123, memoryd compact".
func Owner(what string) string { return fmt.Sprintf("pid %d, %s", os.Getpid(), what) }
