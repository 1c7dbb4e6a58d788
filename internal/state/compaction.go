package state

import (
	"fmt"
	"time"
)

// Compaction is the compaction bookkeeping that survives restarts
// (CompactionFile). The daemon decides from it when a pass is due; every
// process that compacts or writes memory files records what it did in it.
type Compaction struct {
	Churn           int       `json:"churn"`
	LastAttemptedAt time.Time `json:"lastAttemptedAt"`
	LastCompactedAt time.Time `json:"lastCompactedAt"`
	Failures        int       `json:"failures"`
	LastError       string    `json:"lastError,omitempty"`
	// LastPassAt is when a pass last finished; zero when none has (or none
	// since this field was added). LastCompactedAt cannot say so: a fresh
	// state sets it to the time it was created, so that the interval counts
	// from install.
	LastPassAt time.Time `json:"lastPassAt,omitzero"`
	// PausedAt is when a pass last stopped at the day's bound on removals
	// (it waits for a person or for the removals to age out); zero once a
	// pass has run. Unattended passes are not tried again before the pause
	// can have ended (PauseEnds), and never sooner than a poll later: the
	// churn that triggered it is still there.
	PausedAt time.Time `json:"pausedAt,omitzero"`
	// Removed records the destructive ops of recent passes (files removed
	// or cut down), for the bound over a rolling day; older entries are
	// dropped when a pass is recorded.
	Removed []Removal `json:"removed,omitempty"`
}

// UpdateCompaction changes the persisted compaction state under its own
// lock and returns the result, so the daemon and the commands that write
// memory (`memoryd extract`, `memoryd compact`) can each record what they
// did without losing the other's update. A missing file starts from a state
// whose interval counts from now: a new install does not compact at once.
// A damaged file is replaced by a fresh state, and the error says so.
func UpdateCompaction(dir string, now time.Time, change func(*Compaction)) (Compaction, error) {
	lock, err := LockWait(dir, CompactionFile+".lock")
	if err != nil {
		return Compaction{}, err
	}
	defer lock.Unlock()
	var st Compaction
	err = ReadJSON(dir, CompactionFile, &st)
	if IsNotExist(err) {
		st, err = Compaction{LastCompactedAt: now}, nil
	}
	if err != nil {
		st = Compaction{LastCompactedAt: now}
		err = fmt.Errorf("compaction state unreadable, starting afresh: %w", err)
	}
	change(&st)
	if werr := WriteJSON(dir, CompactionFile, st); werr != nil {
		return st, werr
	}
	return st, err
}

// AddChurn is the change that counts n more memory files changed.
func AddChurn(n int) func(*Compaction) {
	return func(s *Compaction) { s.Churn += n }
}

// RecordPass is the change a finished compaction pass makes: churn cleared,
// failures forgotten, the interval restarted.
func RecordPass(now time.Time) func(*Compaction) {
	return func(s *Compaction) {
		s.Churn, s.Failures, s.LastError = 0, 0, ""
		s.LastCompactedAt, s.LastAttemptedAt, s.LastPassAt = now, now, now
		s.PausedAt = time.Time{}
	}
}

// RemovalWindow is the rolling day over which unattended passes' removals
// are bounded.
const RemovalWindow = 24 * time.Hour

// PauseEnds is the first moment a pass paused at the day's bound can go on:
// when the oldest removal recorded ages out of RemovalWindow. Zero when no
// removal is recorded (nothing to wait for).
func (c Compaction) PauseEnds() time.Time {
	var oldest time.Time
	for _, r := range c.Removed {
		if oldest.IsZero() || r.At.Before(oldest) {
			oldest = r.At
		}
	}
	if oldest.IsZero() {
		return oldest
	}
	return oldest.Add(RemovalWindow)
}

// Removal is one pass's count of destructive ops.
type Removal struct {
	At time.Time `json:"at"`
	N  int       `json:"n"`
}

// RemovedSince sums the destructive ops recorded after since.
func (c Compaction) RemovedSince(since time.Time) int {
	n := 0
	for _, r := range c.Removed {
		if r.At.After(since) {
			n += r.N
		}
	}
	return n
}

// AddRemoved is the change that records n destructive ops at now and
// forgets those older than keep.
func AddRemoved(now time.Time, n int, keep time.Duration) func(*Compaction) {
	return func(s *Compaction) {
		kept := s.Removed[:0:0]
		for _, r := range s.Removed {
			if r.At.After(now.Add(-keep)) {
				kept = append(kept, r)
			}
		}
		if n > 0 {
			kept = append(kept, Removal{At: now, N: n})
		}
		s.Removed = kept
	}
}
