package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/backoff"
	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/transcript"
	"github.com/memoryd/memoryd/internal/watcher"
)

// Extractor is what the daemon needs of extraction (extractor.Extractor).
type Extractor interface {
	// Changed returns the sessions updated after since (the zero time lists
	// all). A source that fails makes an error; the others' sessions are
	// returned beside it.
	Changed(ctx context.Context, since time.Time) ([]transcript.Session, error)
	// WatchPaths are folders whose changes hint at new activity.
	WatchPaths() []string
	// Extract runs one pass over one session. It returns an error matching
	// extractor.ErrNothingToDo when the session had nothing new.
	Extract(ctx context.Context, source, id string) (extractor.Result, error)
}

// ExtractPolicy holds the extraction timing.
type ExtractPolicy struct {
	Debounce time.Duration // idle time after a finished reply
	// Discover is how often the transcript stores are looked for again, so
	// that one created after start (a first Claude Code session) is
	// watched; a few stats each time. Zero means 30 s.
	Discover time.Duration
}

// Extraction wires the extractor into the daemon.
type Extraction struct {
	Extractor Extractor

	once     sync.Once
	activity chan struct{}
}

func (x *Extraction) activityChan() chan struct{} {
	if x == nil {
		return nil
	}
	x.once.Do(func() { x.activity = make(chan struct{}, 1) })
	return x.activity
}

// runWatchers watches the transcript folders (each alone, not its subtree)
// and turns any change into one pending activity signal (a 1-buffered
// channel: bursts collapse). The sources' folders can grow — a new store, a
// new project or date folder — so the list is asked again every
// ExtractPolicy.Discover; a new folder's watcher starts with a rescan,
// which is activity, so its sessions are listed at once.
func (x *Extraction) runWatchers(ctx context.Context, every time.Duration, log *slog.Logger) {
	log = log.With("watching", "transcripts")
	var wg sync.WaitGroup
	defer wg.Wait()
	watched := map[string]bool{}
	refresh := time.NewTimer(0)
	defer refresh.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-refresh.C:
		}
		for _, p := range x.Extractor.WatchPaths() {
			if watched[p] {
				continue
			}
			watched[p] = true
			w := watcher.New(watcher.Options{Dir: p, Flat: true, Logger: log})
			wg.Go(func() {
				if err := w.Run(ctx); err != nil {
					log.Warn("transcript watcher stopped", "dir", p, "err", err)
				}
			})
			wg.Go(func() { x.forward(ctx, w.Events()) })
		}
		refresh.Reset(every)
	}
}

// forward turns watcher events into activity signals.
func (x *Extraction) forward(ctx context.Context, events <-chan watcher.Event) {
	ch := x.activityChan()
	for {
		select {
		case <-ctx.Done():
			return
		case <-events:
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// session is the scheduler's view of one session.
type session struct {
	transcript.Session
	remember bool      // the newest user message asks to remember something
	done     time.Time // Updated as of the last successful pass
	failures int
	retryAt  time.Time
}

// extractState tracks sessions. Only accessed from the loop goroutine.
type extractState struct {
	sessions map[string]*session
	since    time.Time // Changed is asked from here next
	polled   bool
	listErr  string // the last error listing sessions, logged once
	last     struct {
		session string
		at      time.Time
		written int
		err     string
	}
}

func newExtractState() extractState { return extractState{sessions: map[string]*session{}} }

// update merges freshly listed sessions.
func (e *extractState) update(list []transcript.Session) {
	for _, s := range list {
		k := extractor.Key(s.Source, s.ID)
		cur, ok := e.sessions[k]
		if !ok {
			cur = &session{}
			e.sessions[k] = cur
		}
		cur.Session, cur.remember = s, transcript.WantsRemember(s.LastUserText)
	}
}

// dueAt says when s should be extracted: once it is finished and idle for
// the debounce, at once when the user asked to remember something, and not
// before a retry time after a failure.
func dueAt(s *session, p ExtractPolicy) (time.Time, bool) {
	if !s.Finished || !s.Updated.After(s.done) {
		return time.Time{}, false
	}
	at := s.Updated.Add(p.Debounce)
	if s.remember {
		at = s.Updated
	}
	if s.retryAt.After(at) {
		at = s.retryAt
	}
	return at, true
}

// next returns the earliest due time over all sessions.
func (e *extractState) next(p ExtractPolicy, now time.Time) (time.Time, bool) {
	var best time.Time
	found := false
	for _, s := range e.sessions {
		if at, ok := dueAt(s, p); ok && (!found || at.Before(best)) {
			best, found = at, true
		}
	}
	return best, found
}

// due returns the key of the session to extract now, oldest due first.
func (e *extractState) due(p ExtractPolicy, now time.Time) (string, bool) {
	type cand struct {
		k  string
		at time.Time
	}
	var c []cand
	for k, s := range e.sessions {
		if at, ok := dueAt(s, p); ok && !at.After(now) {
			c = append(c, cand{k, at})
		}
	}
	if len(c) == 0 {
		return "", false
	}
	sort.Slice(c, func(i, j int) bool {
		if !c[i].at.Equal(c[j].at) {
			return c[i].at.Before(c[j].at)
		}
		return c[i].k < c[j].k
	})
	return c[0].k, true
}

// pollSessions asks the sources what changed since the last poll.
func (l *loop) pollSessions(ctx context.Context, now time.Time) {
	x := l.d.deps.Extraction
	if x == nil {
		return
	}
	list, err := x.Extractor.Changed(ctx, l.extract.since)
	l.noteListError(err)
	if err != nil && len(list) == 0 {
		return
	}
	// A write may land in the same millisecond as the poll; look back a
	// little next time. Re-listing a session is harmless.
	l.extract.since = now.Add(-2 * time.Second)
	l.extract.polled = true
	l.extract.update(list)
	l.maybeExtract(ctx, now)
}

// noteListError logs a failure to list sessions once per distinct error,
// and the recovery. A source that fails is asked again from the same point
// next time; the others' sessions are used meanwhile.
func (l *loop) noteListError(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if msg == l.extract.listErr {
		return
	}
	if err != nil {
		l.log.Warn("list agent sessions", "err", err)
	} else {
		l.log.Info("listing agent sessions works again")
	}
	l.extract.listErr = msg
}

// maybeExtract starts the extraction of the most overdue session.
func (l *loop) maybeExtract(ctx context.Context, now time.Time) {
	x := l.d.deps.Extraction
	if x == nil || l.job != jobNone || l.paused || l.d.deps.Git == nil {
		return
	}
	k, ok := l.extract.due(l.d.opts.Extract, now)
	if !ok || !l.budgetAllows(now) {
		return
	}
	s := l.extract.sessions[k]
	s.done = s.Updated // claimed; a later change makes it due again
	jctx, cancel := context.WithCancel(ctx)
	l.job, l.jobCancel = jobExtract, cancel
	src, id := s.Source, s.ID
	go func() {
		defer cancel()
		start := time.Now()
		res, err := x.Extractor.Extract(jctx, src, id)
		l.results <- jobResult{kind: jobExtract, err: err, written: len(res.Changes), session: k, hash: res.Commit, took: time.Since(start)}
	}()
}

// finishExtract records an extraction pass.
func (l *loop) finishExtract(r jobResult, now time.Time) {
	s := l.extract.sessions[r.session]
	switch {
	case r.err == nil:
		l.log.Info(fmt.Sprintf("extracted %s from %s (%s, %s)", plural(r.written, "memory", "memories"), r.session, short(r.hash), took(r.took)))
		l.extract.last.session, l.extract.last.at, l.extract.last.written, l.extract.last.err = r.session, now, r.written, ""
		s.failures = 0
		l.addChurn(r.written)
		l.rescan = true
		l.indexDeb.touch(now)
	case errors.Is(r.err, extractor.ErrNothingToDo):
		l.log.Debug("nothing new to extract", "session", r.session)
		s.failures = 0
	case errors.Is(r.err, context.Canceled):
		s.done = time.Time{}
	case errors.Is(r.err, llm.ErrBudgetSpent):
		// Not a failure: no call was made. The session stays due and
		// waits for the budget (budgetAllows logs the pause once).
		s.done = time.Time{}
		l.budgetAllows(now)
	default:
		s.failures++
		s.done = time.Time{}
		s.retryAt = now.Add(backoff.Delay(s.failures, time.Minute, time.Hour))
		l.extract.last.session, l.extract.last.at, l.extract.last.err = r.session, now, r.err.Error()
		l.log.Warn("extraction failed", "session", r.session, "err", r.err, "retry_at", s.retryAt)
	}
}

// ExtractStatus is the extraction part of status.json.
type ExtractStatus struct {
	Enabled       bool      `json:"enabled"`
	Sessions      int       `json:"sessions"`
	Pending       []string  `json:"pending,omitempty"`
	LastSession   string    `json:"lastSession,omitempty"`
	LastAt        time.Time `json:"lastAt"`
	LastWritten   int       `json:"lastWritten"`
	LastError     string    `json:"lastError,omitempty"`
	NextAt        time.Time `json:"nextAt"`
	LastPolledAny bool      `json:"polled"`
}

func (e *extractState) status(p ExtractPolicy, enabled bool) ExtractStatus {
	st := ExtractStatus{Enabled: enabled, Sessions: len(e.sessions), LastPolledAny: e.polled}
	for k, s := range e.sessions {
		if _, ok := dueAt(s, p); ok {
			st.Pending = append(st.Pending, k)
		}
	}
	sort.Strings(st.Pending)
	st.LastSession, st.LastAt, st.LastWritten, st.LastError = e.last.session, e.last.at, e.last.written, e.last.err
	st.NextAt, _ = e.next(p, time.Time{})
	return st
}
