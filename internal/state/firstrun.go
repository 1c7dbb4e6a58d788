package state

import "time"

// firstRun is FirstRunFile's content.
type firstRun struct {
	At time.Time `json:"at"`
}

// FirstRun returns when memoryd first ran for the folder whose state
// folder is dir, recording now as that time when nothing is recorded yet
// (a new state folder, or one deleted since: extraction then starts from
// the sessions active from now on, which is the safe side of a replay of
// months of history).
func FirstRun(dir string, now time.Time) (time.Time, error) {
	var r firstRun
	if err := ReadJSON(dir, FirstRunFile, &r); err == nil && !r.At.IsZero() {
		return r.At, nil
	} else if err != nil && !IsNotExist(err) {
		return now, err
	}
	if err := Ensure(dir); err != nil {
		return now, err
	}
	return now, WriteJSON(dir, FirstRunFile, firstRun{At: now})
}
