package recall

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/state"
)

// SessionsFile is the record of what each session was given, in the
// memory folder's state folder.
const SessionsFile = "recall-sessions.json"

// ReadSessions is the record in stateDir. An unreadable record is as good
// as none: RecordGiven starts a new one.
func ReadSessions(stateDir string) Sessions {
	var s Sessions
	state.ReadJSON(stateDir, SessionsFile, &s)
	return s
}

// RecordGiven adds files to session id's record in stateDir, under a lock
// so that two hooks at once keep both. It waits for the lock until ctx
// ends.
func RecordGiven(ctx context.Context, stateDir, id string, files []string) error {
	var lock *state.Lock
	for {
		l, err := state.TryLock(stateDir, SessionsFile+".lock", state.Owner("recall"))
		if err == nil {
			lock = l
			break
		}
		if !errors.Is(err, state.ErrLocked) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(5 * time.Millisecond):
		}
	}
	defer lock.Unlock()
	var s Sessions
	if err := state.ReadJSON(stateDir, SessionsFile, &s); err != nil && !state.IsNotExist(err) {
		s = Sessions{} // unreadable: start again rather than never record
	}
	now := time.Now()
	s.Add(id, files, now)
	s.Prune(now)
	return writeSessions(stateDir, s)
}

// writeSessions writes the record. It is not synced to disk: a crash that
// loses it only lets a fact be given again, while two syncs would cost
// every prompt that adds a fact milliseconds to tens of milliseconds on a
// busy disk.
func writeSessions(stateDir string, s Sessions) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := state.Ensure(stateDir); err != nil {
		return err
	}
	_, err = atomicfile.WriteNoSync(stateDir, SessionsFile, append(data, '\n'), 0o600)
	return err
}
