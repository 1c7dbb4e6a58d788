package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/memoryd/memoryd/internal/compactor"
	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/transcript"
)

// logBuffer collects what the daemon logs at info, safely across goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// take returns the messages logged since the last take, one per line.
func (l *logBuffer) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		_, msg, _ := strings.Cut(line, "msg=")
		msg, _, _ = strings.Cut(msg, " component=")
		msgs = append(msgs, strings.Trim(msg, `"`))
	}
	l.b.Reset()
	return msgs
}

func infoLogger(buf *logBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// At info the daemon says one concise line per rebuild that changed
// MEMORY.md and per commit, and nothing at all while the folder is idle.
func TestLoopLogsChangesAndIsQuietWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		var logs logBuffer
		f.opts.Logger = infoLogger(&logs)
		f.startSettled()
		logs.take()

		f.write("user-a.md", "first fact")
		time.Sleep(3 * time.Second)
		synctest.Wait()
		got := logs.take()
		want := []string{
			"index rebuilt: 1 memory, ",
			"committed 2 files: memory: update user-a.md, MEMORY.md (000000000000, 0 ms)",
		}
		if len(got) != len(want) {
			t.Fatalf("logged %q, want one rebuild and one commit line", got)
		}
		for i := range want {
			if !strings.HasPrefix(got[i], want[i]) {
				t.Errorf("line %d: %q, want %q…", i, got[i], want[i])
			}
		}

		// Rescans that change nothing (the periodic one, a watcher restart)
		// and hours of quiet: not a line.
		for range 6 {
			f.w.rescan()
			time.Sleep(10 * time.Minute)
			synctest.Wait()
		}
		time.Sleep(12 * time.Hour)
		synctest.Wait()
		if got := logs.take(); len(got) != 0 {
			t.Errorf("an idle daemon logged at info: %q", got)
		}
		f.shutdown()
	})
}

// resultCompactor reports a pass that changed files.
type resultCompactor struct{}

func (resultCompactor) Compact(ctx context.Context) (*compactor.Result, error) {
	return &compactor.Result{Merged: 2, Superseded: 1, Commit: "c0ffee0123456789"}, nil
}

// writingExtractor writes one memory from each session it is asked about.
type writingExtractor struct{ *fakeSessions }

func (writingExtractor) Extract(ctx context.Context, source, id string) (extractor.Result, error) {
	return extractor.Result{Changes: []extractor.Change{{File: "user-x.md", Action: "create"}}, Commit: "abcdef0123456789"}, nil
}

func TestLoopLogsCompactionAndExtraction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		var logs logBuffer
		f.opts.Logger = infoLogger(&logs)
		f.opts.Compact = CompactPolicy{Enabled: true, Churn: 1, MinEntries: 1, Interval: 12 * time.Hour, Poll: 10 * time.Minute}
		f.deps.Compactor = resultCompactor{}
		sessions := &fakeSessions{}
		x := &Extraction{Extractor: writingExtractor{sessions}}
		f.deps.Extraction = x
		f.start()
		f.write("user-a.md", "fact")
		time.Sleep(11 * time.Minute) // commit (churn 1), then the poll
		synctest.Wait()
		sessions.set(transcript.Session{Source: "opencode", ID: "ses_1", Updated: time.Now(), Finished: true, LastUserText: "remember this"})
		x.activityChan() <- struct{}{}
		synctest.Wait()
		got := strings.Join(logs.take(), "\n")
		for _, want := range []string{
			"compaction started (churn): 1 memory, churn ",
			"compaction done: merged 2, superseded 1, rewrote 0, flagged 0 (c0ffee012345, 0 ms)",
			"extracted 1 memory from opencode/ses_1 (abcdef012345, 0 ms)",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("log lacks %q:\n%s", want, got)
			}
		}
		f.shutdown()
	})
}
