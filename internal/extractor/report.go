package extractor

import (
	"errors"

	"github.com/memoryd/memoryd/internal/transcript"
)

// Report is what `memoryd extract --json` prints: each session's pass and
// the totals (docs/JSON.md). Lists are never nil: empty, they print as [].
type Report struct {
	DryRun   bool            `json:"dryRun"`
	Sessions []SessionReport `json:"sessions"`
	Passes   int             `json:"passes"`
	Written  int             `json:"written"`
	Tokens   int             `json:"tokens"`
	Note     string          `json:"note,omitempty"`
}

// SessionReport is one session's pass in a Report.
type SessionReport struct {
	Session  string           `json:"session"`
	Outcome  string           `json:"outcome"` // extracted, nothing, gone, failed
	Error    string           `json:"error,omitempty"`
	Messages int              `json:"messages"`
	Sent     int              `json:"sent"`
	Redacted int              `json:"redacted"`
	Withheld int              `json:"withheld"`
	Changes  []ReportChange   `json:"changes"`
	Rejected []ReportRejected `json:"rejected"`
	Commit   string           `json:"commit,omitempty"`
	Tokens   int              `json:"tokens"`
}

// ReportChange is a file a pass wrote.
type ReportChange struct {
	Action string `json:"action"`
	File   string `json:"file"`
}

// ReportRejected is a proposal the gate turned down.
type ReportRejected struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// NewReport is the report of a run over sessions; dry: a dry run.
func NewReport(dry bool) *Report {
	return &Report{DryRun: dry, Sessions: []SessionReport{}}
}

// Add records one session's pass.
func (j *Report) Add(key string, res Result, err error) {
	s := SessionReport{Session: key, Outcome: "extracted", Messages: res.Messages, Sent: res.Sent,
		Redacted: res.Redacted, Withheld: res.Withheld, Commit: res.Commit, Tokens: res.Tokens,
		Changes: []ReportChange{}, Rejected: []ReportRejected{}}
	switch {
	case errors.Is(err, transcript.ErrSessionGone):
		s.Outcome = "gone"
	case errors.Is(err, ErrNothingToDo):
		s.Outcome = "nothing"
	case err != nil:
		s.Outcome, s.Error = "failed", err.Error()
	}
	for _, c := range res.Changes {
		s.Changes = append(s.Changes, ReportChange{Action: c.Action, File: c.File})
	}
	for _, r := range res.Rejected {
		s.Rejected = append(s.Rejected, ReportRejected{Name: r.Name, Reason: r.Reason})
	}
	j.Sessions = append(j.Sessions, s)
}
