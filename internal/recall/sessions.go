package recall

import (
	"slices"
	"time"
)

// Sessions records, per agent session, the facts recall already gave it,
// so that a later prompt in the same session is not told them again. It
// lives in a state file; Prune keeps it small.
type Sessions struct {
	Sessions map[string]*Session `json:"sessions"`
}

// Session is one session's record.
type Session struct {
	Seen  time.Time `json:"seen"`  // the last prompt that recalled something
	Files []string  `json:"files"` // the facts given, oldest first
}

// Bounds of the record: sessions idle longer than MaxAge are dropped, and
// beyond MaxSessions the longest idle go; a session remembers at most
// MaxFiles facts (the oldest are forgotten, and may be given again).
const (
	MaxAge      = 7 * 24 * time.Hour
	MaxSessions = 200
	MaxFiles    = 300
)

// Given reports whether session id was given file.
func (s *Sessions) Given(id, file string) bool {
	if s == nil || s.Sessions[id] == nil {
		return false
	}
	return slices.Contains(s.Sessions[id].Files, file)
}

// Add records that session id was given files at now.
func (s *Sessions) Add(id string, files []string, now time.Time) {
	if s.Sessions == nil {
		s.Sessions = map[string]*Session{}
	}
	x := s.Sessions[id]
	if x == nil {
		x = &Session{}
		s.Sessions[id] = x
	}
	x.Seen = now
	for _, f := range files {
		if !slices.Contains(x.Files, f) {
			x.Files = append(x.Files, f)
		}
	}
	if over := len(x.Files) - MaxFiles; over > 0 {
		x.Files = slices.Delete(x.Files, 0, over)
	}
}

// Prune drops the sessions idle for MaxAge, then the longest idle beyond
// MaxSessions.
func (s *Sessions) Prune(now time.Time) {
	type aged struct {
		id   string
		seen time.Time
	}
	var keep []aged
	for id, x := range s.Sessions {
		if x == nil || now.Sub(x.Seen) > MaxAge {
			delete(s.Sessions, id)
			continue
		}
		keep = append(keep, aged{id, x.Seen})
	}
	if len(keep) <= MaxSessions {
		return
	}
	slices.SortFunc(keep, func(a, b aged) int { return b.seen.Compare(a.seen) })
	for _, a := range keep[MaxSessions:] {
		delete(s.Sessions, a.id)
	}
}
