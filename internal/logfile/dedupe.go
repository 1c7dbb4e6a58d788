package logfile

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// dedupeHandler writes a log record that repeats the one before it (same
// level, message and attributes, time aside) only once: the repeats are
// counted, and the count is written as one line before the next different
// record ("the previous line repeated 149 more times"). A daemon stuck
// retrying something then logs two lines, not megabytes.
//
// Handlers derived with WithAttrs and WithGroup share one record of the
// last line, so that repeats are seen across the daemon's components.
type dedupeHandler struct {
	next   slog.Handler
	last   *lastLine
	prefix string // the derived handler's attributes and groups, part of a line's identity
}

// lastLine is the last record written and how often it repeated since.
type lastLine struct {
	mu      sync.Mutex
	key     string
	level   slog.Level
	next    slog.Handler // the handler that wrote it, for the count's line
	repeats int
	since   time.Time
}

// Dedupe returns a handler that writes through next, each run of
// repeated records once with its count (dedupeHandler).
func Dedupe(next slog.Handler) slog.Handler {
	return &dedupeHandler{next: next, last: &lastLine{}}
}

func (h *dedupeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *dedupeHandler) Handle(ctx context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(h.prefix)
	fmt.Fprintf(&b, "%s\x00%s", r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString("\x00" + a.String())
		return true
	})
	key := b.String()
	l := h.last
	l.mu.Lock() // held while writing, so that the count precedes the next line
	defer l.mu.Unlock()
	if key == l.key {
		if l.repeats == 0 {
			l.since = r.Time
		}
		l.repeats++
		return nil
	}
	if l.repeats > 0 {
		rep := slog.NewRecord(r.Time, l.level, fmt.Sprintf("the previous line repeated %d more time(s)", l.repeats), 0)
		rep.AddAttrs(slog.Time("since", l.since))
		l.next.Handle(ctx, rep)
	}
	l.key, l.level, l.next, l.repeats = key, r.Level, h.next, 0
	return h.next.Handle(ctx, r)
}

func (h *dedupeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	p := h.prefix
	for _, a := range as {
		p += a.String() + "\x00"
	}
	return &dedupeHandler{next: h.next.WithAttrs(as), last: h.last, prefix: p}
}

func (h *dedupeHandler) WithGroup(name string) slog.Handler {
	return &dedupeHandler{next: h.next.WithGroup(name), last: h.last, prefix: h.prefix + name + ".\x00"}
}

var _ slog.Handler = (*dedupeHandler)(nil)
