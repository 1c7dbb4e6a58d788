package watcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"
)

// These tests run the Run loop in a synctest bubble with a fake fsnotify, so
// that time is fake and exact. Real files are still used for the folder.

// fakeRun starts w.Run in the bubble with a fake fsnotify and returns a
// function that cancels it and checks that it returned nil.
func fakeRun(t *testing.T, w *Watcher) (ff *fakeFactory, stop func()) {
	t.Helper()
	ff = &fakeFactory{}
	w.newFS = ff.new
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	return ff, func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v, want nil", err)
		}
		for i, f := range ff.all() {
			if _, _, closed := f.snapshot(); !closed {
				t.Errorf("fsnotify watcher %d not closed", i)
			}
		}
	}
}

// next returns the next event once the bubble is idle, if there is one.
func next(w *Watcher) (Event, bool) {
	synctest.Wait()
	select {
	case ev := <-w.Events():
		return ev, true
	default:
		return Event{}, false
	}
}

func expect(t *testing.T, w *Watcher, want Event) {
	t.Helper()
	if got, ok := next(w); !ok || got != want {
		t.Fatalf("at %v: got %v (ok=%v), want %v", time.Now(), got, ok, want)
	}
}

func expectNone(t *testing.T, w *Watcher) {
	t.Helper()
	if got, ok := next(w); ok {
		t.Fatalf("unexpected event %v", got)
	}
}

// waitEvent advances fake time in small steps until an event arrives or
// limit has passed, and returns how long it took.
func waitEvent(t *testing.T, w *Watcher, want Event, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) <= limit {
		if got, ok := next(w); ok {
			if got != want {
				t.Fatalf("got %v, want %v", got, want)
			}
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %v within %v", want, limit)
	return 0
}

var rescan = Event{Rescan: true}

func TestRunRescansOnceAtStartThenPeriodically(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		w := New(Options{Dir: dir, RescanInterval: time.Minute})
		ff, stop := fakeRun(t, w)
		defer stop()

		expect(t, w, rescan)
		expectNone(t, w)
		if n := len(ff.all()); n != 1 {
			t.Fatalf("%d fsnotify watchers, want 1", n)
		}
		if added, _, _ := ff.all()[0].snapshot(); fmt.Sprint(added) != fmt.Sprint([]string{dir}) {
			t.Fatalf("watched %v", added)
		}
		ff.all()[0].evC <- fsnotify.Event{Name: filepath.Join(dir, "a.md"), Op: fsnotify.Write}
		expect(t, w, Event{Path: "a.md"})

		time.Sleep(time.Minute - time.Nanosecond)
		expectNone(t, w)
		time.Sleep(time.Nanosecond)
		expect(t, w, rescan)
		time.Sleep(time.Minute)
		expect(t, w, rescan)

		// Any other Rescan (here: a new directory) pushes the periodic one back.
		time.Sleep(30 * time.Second)
		mkdirs(t, dir, "sub")
		ff.all()[0].evC <- fsnotify.Event{Name: filepath.Join(dir, "sub"), Op: fsnotify.Create}
		expect(t, w, rescan)
		expect(t, w, Event{Path: "sub"})
		time.Sleep(time.Minute - time.Nanosecond)
		expectNone(t, w)
		time.Sleep(time.Nanosecond)
		expect(t, w, rescan)
	})
}

func TestRunRetriesWithBackoffAndLogsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		logger, logs := newTestLogger()
		w := New(Options{Dir: dir, RescanInterval: time.Hour, Logger: logger})
		ff := &fakeFactory{}
		var (
			mu       sync.Mutex // the race detector does not know synctest.Wait orders these
			attempts []time.Time
			fail     = true
		)
		tooMany := errors.New("too many open files")
		w.newFS = func() (fsWatcher, error) {
			mu.Lock()
			defer mu.Unlock()
			attempts = append(attempts, time.Now())
			if fail {
				return nil, tooMany
			}
			return ff.new()
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- w.Run(ctx) }()

		time.Sleep(10 * time.Minute)
		expectNone(t, w) // nothing was ever watched: no Rescan
		if n := logs.count("watching memory folder failed"); n != 1 {
			t.Fatalf("%d failure lines for one unchanging error, want 1:\n%s", n, logs)
		}
		mu.Lock()
		tried := slices.Clone(attempts)
		mu.Unlock()
		// Delays double from 100 ms with jitter into [d/2, d], then stay within [15 s, 30 s].
		for i := 1; i < len(tried); i++ {
			gap := tried[i].Sub(tried[i-1])
			d := min(minRetry<<min(i-1, 20), maxRetry) // shift bounded: no overflow
			if gap < d/2 || gap > d {
				t.Fatalf("retry %d after %v, want within [%v, %v]", i, gap, d/2, d)
			}
		}
		if n := len(tried); n < 9+570/30 || n > 9+570/15+1 {
			t.Fatalf("%d attempts in 10 minutes", n)
		}

		mu.Lock()
		fail = false
		mu.Unlock()
		took := waitEvent(t, w, rescan, maxRetry)
		if took > maxRetry {
			t.Fatalf("recovered after %v", took)
		}
		if n := logs.count("watching memory folder again"); n != 1 {
			t.Fatalf("%d recovery lines, want 1:\n%s", n, logs)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

func TestRunOverflowSetsUpWatchesAgainAndRescans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		logger, logs := newTestLogger()
		w := New(Options{Dir: dir, Logger: logger})
		ff, stop := fakeRun(t, w)
		defer stop()
		expect(t, w, rescan)

		// A directory created while events were lost is watched afterwards.
		mkdirs(t, dir, "missed")
		ff.all()[0].errC <- fsnotify.ErrEventOverflow
		expect(t, w, rescan)
		expectNone(t, w)
		all := ff.all()
		if len(all) != 2 {
			t.Fatalf("%d fsnotify watchers, want a second one after overflow", len(all))
		}
		if _, _, closed := all[0].snapshot(); !closed {
			t.Fatal("overflowed watcher not closed")
		}
		added, _, _ := all[1].snapshot()
		if fmt.Sprint(added) != fmt.Sprint([]string{dir, filepath.Join(dir, "missed")}) {
			t.Fatalf("new watcher watches %v", added)
		}
		if logs.count("failed") != 0 || logs.count("setting up watches again") != 1 {
			t.Fatalf("logs:\n%s", logs)
		}
		all[1].evC <- fsnotify.Event{Name: filepath.Join(dir, "missed", "a.md"), Op: fsnotify.Create}
		expect(t, w, Event{Path: "missed/a.md"})
	})
}

func TestRunWatcherErrorRescansAndRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		logger, logs := newTestLogger()
		w := New(Options{Dir: dir, Logger: logger})
		ff, stop := fakeRun(t, w)
		defer stop()
		expect(t, w, rescan)

		ff.all()[0].errC <- errors.New("boom")
		expect(t, w, rescan) // at once: changes may have been missed
		if _, _, closed := ff.all()[0].snapshot(); !closed {
			t.Fatal("failed watcher not closed")
		}
		took := waitEvent(t, w, rescan, minRetry) // watching again
		if took > minRetry {
			t.Fatalf("restarted after %v", took)
		}
		if len(ff.all()) != 2 {
			t.Fatalf("%d watchers", len(ff.all()))
		}
		if logs.count("watching memory folder failed") != 1 || logs.count("watching memory folder again") != 1 {
			t.Fatalf("logs:\n%s", logs)
		}

		// Recovery resets the backoff: the next failure is retried quickly again.
		ff.all()[1].errC <- errors.New("boom")
		expect(t, w, rescan)
		if took := waitEvent(t, w, rescan, minRetry); took > minRetry {
			t.Fatalf("second restart after %v", took)
		}
	})
}

func TestRunRootRemovedRetriesUntilBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "memory")
		mkdirs(t, dir, "sub")
		logger, logs := newTestLogger()
		w := New(Options{Dir: dir, RescanInterval: time.Hour, Logger: logger})
		ff, stop := fakeRun(t, w)
		defer stop()
		expect(t, w, rescan)

		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		ff.all()[0].evC <- fsnotify.Event{Name: dir, Op: fsnotify.Remove}
		expect(t, w, rescan)
		time.Sleep(5 * time.Minute)
		expectNone(t, w)
		if len(ff.all()) != 1 {
			t.Fatalf("%d watchers while the folder is gone", len(ff.all()))
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		waitEvent(t, w, rescan, maxRetry)
		if len(ff.all()) != 2 {
			t.Fatalf("%d watchers after the folder is back", len(ff.all()))
		}
		// One line per distinct error (removed, then missing), not per retry.
		if logs.count("watching memory folder failed") != 2 || logs.count("watching memory folder again") != 1 {
			t.Fatalf("logs:\n%s", logs)
		}
	})
}

func TestRunSlowConsumerGetsRescanAndLosesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		w := New(Options{Dir: dir, RescanInterval: time.Hour})
		ff, stop := fakeRun(t, w)
		defer stop()
		expect(t, w, rescan)

		// The loop keeps reading fsnotify while nobody reads Events: these
		// unbuffered sends would deadlock the bubble otherwise.
		f := ff.all()[0]
		const n = eventBuffer + 44
		for i := range n {
			f.evC <- fsnotify.Event{Name: filepath.Join(dir, fmt.Sprintf("f%03d.md", i)), Op: fsnotify.Create}
		}
		for i := range eventBuffer {
			expect(t, w, Event{Path: fmt.Sprintf("f%03d.md", i)})
		}
		// The rest collapsed into one Rescan, sent once there was room.
		expect(t, w, rescan)
		expectNone(t, w)
		f.evC <- fsnotify.Event{Name: filepath.Join(dir, "later.md"), Op: fsnotify.Write}
		expect(t, w, Event{Path: "later.md"})
	})
}

func TestRunReturnsOnCancelWithFullBuffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		w := New(Options{Dir: dir})
		ff, stop := fakeRun(t, w)
		synctest.Wait()
		for i := range eventBuffer + 1 {
			ff.all()[0].evC <- fsnotify.Event{Name: filepath.Join(dir, fmt.Sprint(i)), Op: fsnotify.Create}
		}
		stop() // checks that Run returned nil and closed its watcher
	})
}

func TestRunRefusesEmptyDir(t *testing.T) {
	if err := New(Options{}).Run(context.Background()); err == nil {
		t.Fatal("Run with no folder: want an error")
	}
}
