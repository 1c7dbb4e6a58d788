package extractor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/transcript"
)

// ErrNoTranscript means a fact's source names no session memoryd can read:
// it came from a person or a compaction, or its agent's store is not here.
var ErrNoTranscript = errors.New("no transcript for this source")

// Excerpt returns the part of the session a fact was drawn from, as the
// model was shown it (secrets redacted, withheld messages withheld): the
// messages from the source's first to its last message. An error wrapping
// transcript.ErrSessionGone says the session no longer exists.
func (x *Extractor) Excerpt(ctx context.Context, src index.Source) (string, error) {
	names := sourceNames(src.Agent, x.deps.Sources.Names())
	if src.Session == "" || len(names) == 0 {
		return "", fmt.Errorf("%w (%s)", ErrNoTranscript, src.Agent)
	}
	first, last, _ := strings.Cut(src.Messages, "..")
	var lastErr error
	for _, name := range names {
		var msgs []transcript.Message
		err := x.deps.Sources.Use(name, func(s transcript.Source) error {
			var err error
			msgs, err = s.Messages(ctx, src.Session, transcript.Watermark{}, 0)
			return err
		})
		if err != nil {
			lastErr = err
			continue
		}
		return renderTranscript(between(msgs, first, last), x.opts.MaxTranscript).text, nil
	}
	return "", lastErr
}

// sourceNames are the transcript sources an agent name (as metadata.source
// records it) may be: claude-code is "claude", opencode any OpenCode store.
func sourceNames(agent string, have []string) []string {
	var out []string
	for _, n := range have {
		switch {
		case agent == "claude-code" && n == "claude", agent == n,
			agent == "opencode" && strings.HasPrefix(n, "opencode"):
			out = append(out, n)
		}
	}
	return out
}

// between keeps the messages from the one named first to the one named
// last (by id, else time, as messageRef names them); all when neither is
// found.
func between(msgs []transcript.Message, first, last string) []transcript.Message {
	from, to := -1, -1
	for i, m := range msgs {
		ref := messageRef(m)
		if ref == first && from < 0 {
			from = i
		}
		if ref == last {
			to = i
		}
	}
	switch {
	case from < 0 && to < 0:
		return msgs
	case from < 0:
		from = 0
	case to < 0:
		to = len(msgs) - 1
	}
	if to < from {
		return nil
	}
	return msgs[from : to+1]
}

// SourceExcerpt is the excerpt a source's session gave, as sent to the
// model, or the problem that kept it from being shown (`memoryd why`).
type SourceExcerpt struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Excerpt string `json:"excerpt,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// Excerpts is Excerpt of each source that names a session, with each
// problem in the user's words.
func (x *Extractor) Excerpts(ctx context.Context, sources []index.Source) []SourceExcerpt {
	var out []SourceExcerpt
	for _, s := range sources {
		if s.Session == "" {
			continue
		}
		t := SourceExcerpt{Agent: s.Agent, Session: s.Session}
		text, err := x.Excerpt(ctx, s)
		switch {
		case errors.Is(err, transcript.ErrSessionGone):
			t.Problem = fmt.Sprintf("the session is gone (deleted from %s's history)", s.Agent)
		case errors.Is(err, ErrNoTranscript):
			t.Problem = fmt.Sprintf("no %s transcripts on this machine", s.Agent)
		case err != nil:
			t.Problem = err.Error()
		default:
			t.Excerpt = text
		}
		out = append(out, t)
	}
	return out
}
