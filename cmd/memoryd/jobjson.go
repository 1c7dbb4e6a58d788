package main

import (
	"errors"

	"github.com/memoryd/memoryd/internal/compactor"
	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/transcript"
)

// The JSON shapes of `memoryd extract --json` and `memoryd compact --json`
// (docs/JSON.md). Lists are never nil: empty, they print as [].

type extractJSON struct {
	DryRun   bool                 `json:"dryRun"`
	Sessions []extractSessionJSON `json:"sessions"`
	Passes   int                  `json:"passes"`
	Written  int                  `json:"written"`
	Tokens   int                  `json:"tokens"`
	Note     string               `json:"note,omitempty"`
}

type extractSessionJSON struct {
	Session  string            `json:"session"`
	Outcome  string            `json:"outcome"` // extracted, nothing, gone, failed
	Error    string            `json:"error,omitempty"`
	Messages int               `json:"messages"`
	Sent     int               `json:"sent"`
	Redacted int               `json:"redacted"`
	Withheld int               `json:"withheld"`
	Changes  []extractChange   `json:"changes"`
	Rejected []extractRejected `json:"rejected"`
	Commit   string            `json:"commit,omitempty"`
	Tokens   int               `json:"tokens"`
}

type extractChange struct {
	Action string `json:"action"`
	File   string `json:"file"`
}

type extractRejected struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

func newExtractJSON(dry bool) *extractJSON {
	return &extractJSON{DryRun: dry, Sessions: []extractSessionJSON{}}
}

// add records one session's pass.
func (j *extractJSON) add(key string, res extractor.Result, err error) {
	s := extractSessionJSON{Session: key, Outcome: "extracted", Messages: res.Messages, Sent: res.Sent,
		Redacted: res.Redacted, Withheld: res.Withheld, Commit: res.Commit, Tokens: res.Tokens,
		Changes: []extractChange{}, Rejected: []extractRejected{}}
	switch {
	case errors.Is(err, transcript.ErrSessionGone):
		s.Outcome = "gone"
	case errors.Is(err, extractor.ErrNothingToDo):
		s.Outcome = "nothing"
	case err != nil:
		s.Outcome, s.Error = "failed", err.Error()
	}
	for _, c := range res.Changes {
		s.Changes = append(s.Changes, extractChange{Action: c.Action, File: c.File})
	}
	for _, r := range res.Rejected {
		s.Rejected = append(s.Rejected, extractRejected{Name: r.Name, Reason: r.Reason})
	}
	j.Sessions = append(j.Sessions, s)
}

type compactJSON struct {
	DryRun     bool          `json:"dryRun"`
	Outcome    string        `json:"outcome"` // done, nothing, failed
	Error      string        `json:"error,omitempty"`
	Files      int           `json:"files"`
	LeftOut    int           `json:"leftOut"`
	Calls      int           `json:"calls"`
	CharsSent  int           `json:"charsSent"`
	Tokens     int           `json:"tokens"`
	LLMMillis  int64         `json:"llmMillis"`
	TooLarge   []string      `json:"tooLarge"`
	Problems   []string      `json:"problems"`
	Applied    []string      `json:"applied"`
	Skipped    []compactSkip `json:"skipped"`
	Summary    string        `json:"summary,omitempty"`
	Checkpoint string        `json:"checkpoint,omitempty"`
	Commit     string        `json:"commit,omitempty"`
}

type compactSkip struct {
	Op     string `json:"op"`
	Reason string `json:"reason"`
}

// newCompactJSON describes a pass (res may be nil when it never started).
func newCompactJSON(dry bool, res *compactor.Result, err error) compactJSON {
	j := compactJSON{DryRun: dry, Outcome: "done", TooLarge: []string{}, Problems: []string{}, Applied: []string{}, Skipped: []compactSkip{}}
	switch {
	case errors.Is(err, compactor.ErrNothingToDo):
		j.Outcome = "nothing"
	case err != nil:
		j.Outcome, j.Error = "failed", err.Error()
	}
	if res == nil {
		return j
	}
	j.Files, j.LeftOut, j.Calls, j.CharsSent, j.Tokens = res.Files, res.LeftOut, res.Calls, res.CharsSent, res.Tokens
	j.LLMMillis = res.LLMTime.Milliseconds()
	j.TooLarge = append(j.TooLarge, res.TooLarge...)
	j.Problems = append(j.Problems, res.Problems...)
	for _, op := range res.Applied {
		j.Applied = append(j.Applied, op.String())
	}
	for _, s := range res.Skipped {
		j.Skipped = append(j.Skipped, compactSkip{Op: s.Op.String(), Reason: s.Reason})
	}
	if err == nil {
		j.Summary = res.Summary()
	}
	j.Checkpoint, j.Commit = res.Checkpoint, res.Commit
	return j
}
