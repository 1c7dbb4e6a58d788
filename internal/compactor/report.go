package compactor

import "errors"

// Report is what `memoryd compact --json` prints of a pass (docs/JSON.md).
// Lists are never nil: empty, they print as [].
type Report struct {
	DryRun     bool         `json:"dryRun"`
	Outcome    string       `json:"outcome"` // done, nothing, failed
	Error      string       `json:"error,omitempty"`
	Files      int          `json:"files"`
	LeftOut    int          `json:"leftOut"`
	Calls      int          `json:"calls"`
	CharsSent  int          `json:"charsSent"`
	Tokens     int          `json:"tokens"`
	LLMMillis  int64        `json:"llmMillis"`
	TooLarge   []string     `json:"tooLarge"`
	Problems   []string     `json:"problems"`
	Applied    []string     `json:"applied"`
	Skipped    []ReportSkip `json:"skipped"`
	Summary    string       `json:"summary,omitempty"`
	Checkpoint string       `json:"checkpoint,omitempty"`
	Commit     string       `json:"commit,omitempty"`
}

// ReportSkip is an operation the pass skipped, and why.
type ReportSkip struct {
	Op     string `json:"op"`
	Reason string `json:"reason"`
}

// NewReport describes a pass (res may be nil when it never started).
func NewReport(dry bool, res *Result, err error) Report {
	j := Report{DryRun: dry, Outcome: "done", TooLarge: []string{}, Problems: []string{}, Applied: []string{}, Skipped: []ReportSkip{}}
	switch {
	case errors.Is(err, ErrNothingToDo):
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
		j.Skipped = append(j.Skipped, ReportSkip{Op: s.Op.String(), Reason: s.Reason})
	}
	if err == nil {
		j.Summary = res.Summary()
	}
	j.Checkpoint, j.Commit = res.Checkpoint, res.Commit
	return j
}
