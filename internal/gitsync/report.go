package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// TakeRemoteRound is `memoryd sync --take-remote`: TakeRemote, then a
// round, which pushes what was kept for review; the review items of both
// are in the result. Without take it is a round alone.
func (s *Syncer) TakeRemoteRound(ctx context.Context, take bool) (Result, error) {
	if !take {
		return s.Round(ctx)
	}
	taken, err := s.TakeRemote(ctx)
	if err != nil {
		return taken, err
	}
	res, err := s.Round(ctx)
	res.Review = append(taken.Review, res.Review...)
	return res, err
}

// Report is what `memoryd sync --json` prints: the round's result, whether
// the daemon syncs by itself, and the round's error.
type Report struct {
	Result
	Enabled bool   `json:"enabled"` // sync.enabled: whether the daemon syncs by itself
	Error   string `json:"error,omitempty"`
}

// Failure is the error a failed round ends `memoryd sync` with: the pause's
// reason, or that the commits stay here while offline.
func Failure(err error, res Result) error {
	switch {
	case errors.Is(err, ErrPaused) && res.Paused != "":
		return errors.New("paused: " + res.Paused)
	case errors.Is(err, ErrOffline):
		return fmt.Errorf("%w; your commits stay here (%d ahead) and go out at the next sync", err, res.Ahead)
	}
	return err
}

// Print says what a round pulled, pushed and left for review.
func (r Report) Print(w io.Writer) {
	if r.Target == "" {
		return
	}
	fmt.Fprintf(w, "remote         %s\n", r.Target)
	fmt.Fprintf(w, "pulled         %s\n", commits(r.Pulled))
	fmt.Fprintf(w, "pushed         %s\n", commits(r.Pushed))
	if len(r.Review) > 0 {
		fmt.Fprintf(w, "for review     %s (changed on both machines: the remote's version stays, this one's waits; memoryd review)\n", strings.Join(r.Review, ", "))
	}
	fmt.Fprintf(w, "now            %d ahead, %d behind\n", r.Ahead, r.Behind)
	if !r.Enabled {
		fmt.Fprintln(w, "sync.enabled is off: the daemon does not sync by itself (set sync.enabled: true or MEMORY_SYNC_ENABLED=1)")
	}
}

func commits(n int) string {
	if n == 1 {
		return "1 commit"
	}
	return fmt.Sprintf("%d commits", n)
}
