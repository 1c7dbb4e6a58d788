package daemon

import (
	"fmt"
	"os"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// Status is what the daemon publishes in status.json for `memoryd status`.
type Status struct {
	Running   bool      `json:"running"`
	PID       int       `json:"pid"`
	Version   string    `json:"version,omitempty"`
	MemoryDir string    `json:"memoryDir"`
	StartedAt time.Time `json:"startedAt"`
	UpdatedAt time.Time `json:"updatedAt"`

	Index struct {
		Files      int       `json:"files"`
		Unreadable []string  `json:"unreadable,omitempty"`
		Conflicts  int       `json:"conflicts"`
		Lines      int       `json:"lines"`
		Bytes      int       `json:"bytes"`
		MaxLines   int       `json:"maxLines"`
		MaxBytes   int       `json:"maxBytes"`
		OverBudget bool      `json:"overBudget"`
		RebuiltAt  time.Time `json:"rebuiltAt"`
		Blocked    []string  `json:"blocked,omitempty"` // a person's MEMORY.<slug>.md where a project's index belongs (index.Written.Blocked)
	} `json:"index"`

	Git struct {
		Enabled      bool      `json:"enabled"`
		Problem      string    `json:"problem,omitempty"`
		Paused       bool      `json:"paused"`
		PausedBy     string    `json:"paused_by,omitempty"` // the operation and the way out
		LastCommit   string    `json:"lastCommit,omitempty"`
		LastCommitAt time.Time `json:"lastCommitAt"`
		LastCheckAt  time.Time `json:"lastCheckAt"`         // last time pending changes were compared with HEAD
		Held         []string  `json:"held,omitempty"`      // files kept out of commits, and why (a secret)
		Ignored      []string  `json:"ignored,omitempty"`   // new memory files git's ignore rules exclude, each with the rule: "FILE (SOURCE:LINE: PATTERN)"
		IgnoreFix    string    `json:"ignoreFix,omitempty"` // how to let them in
		// IgnoredIndex is the entry of Ignored that is one of memoryd's own
		// indexes ("" when none is): a rule that keeps the whole folder out.
		IgnoredIndex string `json:"ignoredIndex,omitempty"`
	} `json:"git"`

	Compaction struct {
		Enabled     bool             `json:"enabled"`
		State       state.Compaction `json:"state"`
		NextCheckAt time.Time        `json:"nextCheckAt"`
	} `json:"compaction"`

	Extraction ExtractStatus `json:"extraction"`

	// Sync is sync with the notes repository's remote (sync.enabled).
	Sync SyncStatus `json:"sync"`

	// Budget is the daily token budget as the daemon enforces it.
	Budget struct {
		DailyTokens int       `json:"dailyTokens"` // 0: no limit
		Paused      bool      `json:"paused"`      // no extraction or compaction starts until ResumesAt
		ResumesAt   time.Time `json:"resumesAt,omitzero"`
	} `json:"budget"`

	// Nudge says that this daemon answers a command's nudge (Deps.Nudge,
	// SIGUSR1): a daemon without it would be killed by the signal.
	Nudge bool `json:"nudge,omitempty"`

	// Stale is never set by the daemon: `memoryd status` sets it (and
	// clears Running) when no daemon holds the instance lock, so the rest is
	// what the last daemon published before it stopped, or was killed.
	Stale bool `json:"stale,omitempty"`
}

func (l *loop) initStatus(now time.Time) {
	s := &l.status
	s.Running, s.PID, s.Version = true, pid(), l.d.opts.Version
	s.MemoryDir, s.StartedAt = l.d.opts.MemoryDir, now
	s.Index.MaxLines, s.Index.MaxBytes = l.d.opts.Budget.Lines, l.d.opts.Budget.Bytes
	s.Git.Enabled = l.d.deps.Git != nil
	s.Git.Problem = l.d.deps.GitProblem
	s.Compaction.Enabled = l.d.deps.Compactor != nil && l.d.opts.Compact.Enabled
	s.Compaction.State = l.compact
	s.Extraction.Enabled = l.d.deps.Extraction != nil
	s.Budget.DailyTokens = max(l.d.opts.DailyTokens, 0)
	s.Nudge = l.d.deps.Nudge != nil
	l.publishStatus(now)
}

// updateIndexStatus refreshes the index part of the status after a rebuild
// that wrote MEMORY.md as w, and logs a budget overrun once when it starts.
func (l *loop) updateIndexStatus(w index.Written, now time.Time) {
	snap := l.d.deps.Store.Snapshot()
	s := &l.status.Index
	s.Files, s.Conflicts, s.RebuiltAt = len(snap.Memories), snap.Conflicts, now
	s.Unreadable = s.Unreadable[:0]
	for _, u := range snap.Unreadable {
		s.Unreadable = append(s.Unreadable, u.Err.Error())
	}
	over := l.d.opts.Budget.Exceeded(w.Lines, w.Bytes)
	if over && !s.OverBudget {
		l.log.Warn("MEMORY.md is over its budget; compaction will try to shrink the store",
			"lines", w.Lines, "bytes", w.Bytes, "max_lines", l.d.opts.Budget.Lines, "max_bytes", l.d.opts.Budget.Bytes)
	}
	s.OverBudget, s.Lines, s.Bytes, s.Blocked = over, w.Lines, w.Bytes, w.Blocked()
	// One line when MEMORY.md changed; a rebuild that changes nothing (the
	// periodic rescan of an idle folder) says nothing at info.
	if w.Changed {
		msg := fmt.Sprintf("index rebuilt: %s, %d lines", plural(s.Files, "memory", "memories"), s.Lines)
		if len(s.Unreadable) > 0 {
			msg += fmt.Sprintf(", %d unreadable", len(s.Unreadable))
		}
		l.log.Info(msg)
	}
}

// statusEvery is the most often status.json is rewritten: a burst of
// rebuilds costs one write (and fsync) per second, not one per rebuild.
const statusEvery = time.Second

// writeStatus marks the status as changed; the loop publishes it within
// statusEvery. It is called only when something happened, so an idle daemon
// writes nothing.
func (l *loop) writeStatus(now time.Time) { l.statusDirty = true }

// statusDue says when the pending status should be published.
func (l *loop) statusDue() (time.Time, bool) {
	return l.statusWritten.Add(statusEvery), l.statusDirty
}

// publishStatus writes status.json now.
func (l *loop) publishStatus(now time.Time) {
	l.statusDirty, l.statusWritten = false, now
	l.status.UpdatedAt = now
	l.status.Compaction.NextCheckAt = l.compactCheck
	l.status.Extraction = l.extract.status(l.d.opts.Extract, l.status.Extraction.Enabled)
	if err := state.WriteJSON(l.d.opts.StateDir, state.StatusFile, &l.status); err != nil {
		l.log.Error("write status", "err", err)
	}
}

func pid() int { return os.Getpid() }

// Problems lists, in words for `memoryd status`, what the status shows
// to be wrong.
func (s *Status) Problems() []string {
	var p []string
	for _, u := range s.Index.Unreadable {
		p = append(p, "unreadable memory file: "+u)
	}
	if s.Index.OverBudget {
		p = append(p, fmt.Sprintf("MEMORY.md is over budget: %d lines, %d bytes (budget %d lines, %d bytes)",
			s.Index.Lines, s.Index.Bytes, s.Index.MaxLines, s.Index.MaxBytes))
	}
	p = append(p, s.Index.Blocked...)
	if s.Index.Conflicts > 0 {
		p = append(p, fmt.Sprintf("%d unresolved contradiction(s) in _CONFLICTS.md", s.Index.Conflicts))
	}
	p = append(p, s.Git.Held...)
	if s.Git.IgnoredIndex != "" {
		p = append(p, fmt.Sprintf("git ignores the memory folder's files, so none is committed: %d new file(s), %s among them; fix: %s",
			len(s.Git.Ignored), s.Git.IgnoredIndex, s.Git.IgnoreFix))
	}
	if s.Git.Problem != "" && s.Git.Enabled {
		p = append(p, "git: "+s.Git.Problem)
	}
	if s.Git.Paused {
		why := s.Git.PausedBy
		if why == "" {
			why = "the repository is in the middle of a git operation"
		}
		p = append(p, "paused, writing nothing: "+why)
	}
	p = append(p, s.Sync.problems()...)
	if s.Compaction.State.LastError != "" {
		p = append(p, "last compaction failed: "+s.Compaction.State.LastError)
	}
	if s.Extraction.LastError != "" {
		p = append(p, "last extraction failed: "+s.Extraction.LastError)
	}
	return p
}

// plural is "1 memory", "2 memories".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// short is a commit hash as people quote it.
func short(hash string) string {
	if hash == "" {
		return "no commit"
	}
	return hash[:min(12, len(hash))]
}

// took says how long a job ran, for a log line: "35 ms", "4.2 s".
func took(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
