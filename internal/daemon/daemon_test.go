package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/compactor"
	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/transcript"
	"github.com/memoryd/memoryd/internal/watcher"
)

// fakeWatcher feeds the loop by hand.
type fakeWatcher struct{ ch chan watcher.Event }

func newFakeWatcher() *fakeWatcher                   { return &fakeWatcher{ch: make(chan watcher.Event, 64)} }
func (f *fakeWatcher) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (f *fakeWatcher) Events() <-chan watcher.Event  { return f.ch }
func (f *fakeWatcher) send(path string)              { f.ch <- watcher.Event{Path: path} }
func (f *fakeWatcher) rescan()                       { f.ch <- watcher.Event{Rescan: true} }

// fakeGit records commits; Changes reports whatever was set as pending.
type fakeGit struct {
	mu      sync.Mutex
	busy    error
	inOp    bool
	pending []string
	commits []time.Time
	last    []string
	tries   int
}

func (g *fakeGit) Busy() error { g.mu.Lock(); defer g.mu.Unlock(); return g.busy }
func (g *fakeGit) Operation() (gitstore.Blocker, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return gitstore.Blocker{Kind: gitstore.BlockedByOperation, Reason: "a merge is in progress", Fix: "finish it"}, g.inOp
}

func (g *fakeGit) CommitPending(ctx context.Context, _ string, message func([]string) string) (gitstore.Committed, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pending) == 0 {
		return gitstore.Committed{}, nil
	}
	paths := g.pending
	message(paths)
	g.tries++
	if g.busy != nil {
		return gitstore.Committed{}, g.busy
	}
	g.commits = append(g.commits, time.Now())
	g.last, g.pending = paths, nil
	return gitstore.Committed{Hash: fmt.Sprintf("%040d", len(g.commits)), Paths: paths}, nil
}

func (g *fakeGit) setBusy(err error)          { g.mu.Lock(); g.busy = err; g.mu.Unlock() }
func (g *fakeGit) setInOp(v bool)             { g.mu.Lock(); g.inOp = v; g.mu.Unlock() }
func (g *fakeGit) setChanges(paths ...string) { g.mu.Lock(); g.pending = paths; g.mu.Unlock() }
func (g *fakeGit) attempts() int              { g.mu.Lock(); defer g.mu.Unlock(); return g.tries }
func (g *fakeGit) commitTimes() []time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]time.Time{}, g.commits...)
}

type fixture struct {
	t    *testing.T
	dir  string
	w    *fakeWatcher
	git  *fakeGit
	opts Options
	deps Deps
	stop context.CancelFunc
	done chan error
}

func newFixture(t *testing.T) *fixture {
	dir := t.TempDir()
	f := &fixture{t: t, dir: dir, w: newFakeWatcher(), git: &fakeGit{}}
	f.opts = Options{
		MemoryDir:     dir,
		StateDir:      t.TempDir(),
		IndexQuiet:    50 * time.Millisecond,
		CommitQuiet:   2 * time.Second,
		CommitMaxWait: 30 * time.Second,
		Compact:       CompactPolicy{Poll: 10 * time.Minute, Interval: 12 * time.Hour, Churn: 8, MinEntries: 2},
		Extract:       ExtractPolicy{Debounce: time.Minute},
	}
	f.deps = Deps{Watcher: f.w, Store: index.NewStore(dir), Git: f.git, Commit: f.git}
	return f
}

func (f *fixture) start() {
	ctx, cancel := context.WithCancel(context.Background())
	f.stop, f.done = cancel, make(chan error, 1)
	d := New(f.opts, f.deps)
	go func() { f.done <- d.Run(ctx) }()
	f.w.rescan()
	synctest.Wait()
}

// startSettled starts the daemon, lets its start-up commit of the reserved
// files pass, and returns the number of commits so far.
func (f *fixture) startSettled() int {
	f.start()
	time.Sleep(time.Minute)
	synctest.Wait()
	return len(f.git.commitTimes())
}

func (f *fixture) shutdown() {
	f.stop()
	if err := <-f.done; err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) write(name, desc string) {
	body := fmt.Sprintf("---\nname: %s\ndescription: %s\nmetadata:\n  type: user\n---\nx\n", strings.TrimSuffix(strings.TrimPrefix(name, "user-"), ".md"), desc)
	if err := os.WriteFile(filepath.Join(f.dir, name), []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.git.setChanges(name, "MEMORY.md")
	f.w.send(name)
}

func (f *fixture) index() string {
	b, _ := os.ReadFile(filepath.Join(f.dir, "MEMORY.md"))
	return string(b)
}

func TestLoopRebuildsAfterQuietPeriodAndCommitsAfterDebounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		base := f.startSettled()

		t0 := time.Now()
		f.write("user-a.md", "first fact")
		time.Sleep(49 * time.Millisecond)
		synctest.Wait()
		if strings.Contains(f.index(), "first fact") {
			t.Fatal("rebuilt before the quiet period")
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		if !strings.Contains(f.index(), "first fact") {
			t.Fatal("not rebuilt after the quiet period")
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		c := f.git.commitTimes()
		if len(c) != base+1 {
			t.Fatalf("%d commits, want 1", len(c)-base)
		}
		// The quiet period counts from the user's write, not from the
		// rebuild 50 ms later.
		if got := c[base].Sub(t0); got != 2*time.Second {
			t.Fatalf("commit %s after the write, want 2s", got)
		}
		f.shutdown()
	})
}

// The rebuild's own MEMORY.md write comes back from the watcher as an event;
// it must not restart the quiet period (the commit lagged gitwatch by it).
func TestLoopOwnIndexWriteDoesNotDelayCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		base := f.startSettled()
		t0 := time.Now()
		f.write("user-a.md", "first fact")
		time.Sleep(60 * time.Millisecond)
		synctest.Wait()
		f.w.send(index.IndexFile) // what fsnotify reports after the rebuild
		time.Sleep(3 * time.Second)
		synctest.Wait()
		c := f.git.commitTimes()
		if len(c) != base+1 {
			t.Fatalf("%d commits, want 1", len(c)-base)
		}
		if got := c[base].Sub(t0); got != 2*time.Second {
			t.Fatalf("commit %s after the write, want 2s", got)
		}
		f.shutdown()
	})
}

func TestLoopSteadyEditsCommitAtMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		base := f.startSettled()
		t0 := time.Now()
		// An edit every second for 45 s: the quiet period never comes.
		for i := range 45 {
			f.write("user-a.md", fmt.Sprintf("revision %d", i))
			time.Sleep(time.Second)
		}
		synctest.Wait()
		c := f.git.commitTimes()[base:]
		if len(c) == 0 {
			t.Fatal("no commit during a steady stream of edits")
		}
		// The first commit waits at most the max wait (30 s) after the
		// first rebuild (50 ms after the first write).
		if got := c[0].Sub(t0); got > 30*time.Second+50*time.Millisecond {
			t.Fatalf("first commit after %s, want ≤ 30.05s", got)
		}
		f.shutdown()
	})
}

func TestLoopRetriesBusyRepositoryWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		base := f.startSettled()
		f.git.setBusy(fmt.Errorf("%w: index.lock present", gitstore.ErrBusy))
		f.write("user-a.md", "fact")
		time.Sleep(20 * time.Second)
		synctest.Wait()
		tries := f.git.attempts()
		// Attempts at 2 s, then +1, +2, +4, +8 s: about five in 20 s, not hundreds.
		if tries < 3 || tries > 8 {
			t.Fatalf("%d commit attempts in 20 s while busy", tries)
		}
		if len(f.git.commitTimes()) != base {
			t.Fatal("committed while busy")
		}
		f.git.setBusy(nil)
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if len(f.git.commitTimes()) != base+1 {
			t.Fatalf("no commit once the repository was free")
		}
		f.shutdown()
	})
}

func TestLoopPausesDuringMerge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		base := f.startSettled()
		f.git.setInOp(true)
		f.write("user-a.md", "during merge")
		time.Sleep(time.Minute)
		synctest.Wait()
		if strings.Contains(f.index(), "during merge") || len(f.git.commitTimes()) != base {
			t.Fatal("wrote or committed during a merge")
		}
		f.git.setInOp(false)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if !strings.Contains(f.index(), "during merge") || len(f.git.commitTimes()) != base+1 {
			t.Fatal("did not catch up after the merge")
		}
		f.shutdown()
	})
}

func TestLoopShutdownFlushesPendingCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.opts.CommitQuiet, f.opts.CommitMaxWait = time.Hour, time.Hour
		f.start()
		f.write("user-a.md", "fact")
		time.Sleep(time.Second)
		synctest.Wait()
		before := len(f.git.commitTimes())
		f.shutdown()
		if len(f.git.commitTimes()) != before+1 {
			t.Fatal("shutdown did not commit the pending change")
		}
	})
}

// countingCompactor records passes.
type countingCompactor struct {
	mu    sync.Mutex
	times []time.Time
	err   error
}

func (c *countingCompactor) Compact(ctx context.Context) (*compactor.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.times = append(c.times, time.Now())
	return &compactor.Result{}, c.err
}

func (c *countingCompactor) count() int { c.mu.Lock(); defer c.mu.Unlock(); return len(c.times) }

func TestLoopCompactsOnChurnAndInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.opts.Compact = CompactPolicy{Enabled: true, Churn: 3, MinEntries: 2, Interval: 12 * time.Hour, Poll: 10 * time.Minute}
		comp := &countingCompactor{}
		f.deps.Compactor = comp
		f.start()
		for i := range 3 {
			f.write(fmt.Sprintf("user-%c.md", 'a'+i), "fact")
			time.Sleep(5 * time.Second) // one commit each: churn 1, 2, 3
		}
		synctest.Wait()
		if comp.count() != 1 {
			t.Fatalf("%d passes after churn 3, want 1", comp.count())
		}
		// Nothing more for almost 12 h: no pass, and the poll is the only timer.
		time.Sleep(11 * time.Hour)
		synctest.Wait()
		if comp.count() != 1 {
			t.Fatalf("%d passes while quiet", comp.count())
		}
		time.Sleep(1*time.Hour + 10*time.Minute)
		synctest.Wait()
		if comp.count() != 2 {
			t.Fatalf("%d passes after the interval, want 2", comp.count())
		}
		f.shutdown()
	})
}

func TestLoopFailedCompactionBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.opts.Compact = CompactPolicy{Enabled: true, Churn: 1, MinEntries: 1, Interval: 12 * time.Hour, Poll: time.Minute}
		comp := &countingCompactor{err: fmt.Errorf("provider down")}
		f.deps.Compactor = comp
		f.start()
		f.write("user-a.md", "fact")
		time.Sleep(3 * time.Hour)
		synctest.Wait()
		// Retries at 5, 10, 20, 40, 80 min…: a handful in 3 h, not one per poll (180).
		if n := comp.count(); n < 3 || n > 7 {
			t.Fatalf("%d failed passes in 3 h", n)
		}
		f.shutdown()
	})
}

// fakeSessions serves a fixed list of sessions.
type fakeSessions struct {
	mu   sync.Mutex
	list []transcript.Session
}

func (s *fakeSessions) Changed(ctx context.Context, since time.Time) ([]transcript.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []transcript.Session
	for _, x := range s.list {
		if x.Updated.After(since) {
			out = append(out, x)
		}
	}
	return out, nil
}
func (s *fakeSessions) WatchPaths() []string        { return nil }
func (s *fakeSessions) set(l ...transcript.Session) { s.mu.Lock(); s.list = l; s.mu.Unlock() }

// fakeExtractor extracts nothing from fakeSessions' sessions and records when.
type fakeExtractor struct {
	*fakeSessions
	mu   sync.Mutex
	runs map[string][]time.Time
}

func (e *fakeExtractor) Extract(ctx context.Context, source, id string) (extractor.Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.runs[id] = append(e.runs[id], time.Now())
	return extractor.Result{}, extractor.ErrNothingToDo
}

func (e *fakeExtractor) get(id string) []time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runs[id]
}

func TestLoopExtractionIdleDebounceAndKeyword(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		sessions := &fakeSessions{}
		ex := &fakeExtractor{fakeSessions: sessions, runs: map[string][]time.Time{}}
		x := &Extraction{Extractor: ex}
		f.deps.Extraction = x
		f.start()
		activity := x.activityChan()

		t0 := time.Now()
		sessions.set(
			transcript.Session{Source: "opencode", ID: "idle", Updated: t0, Finished: true},
			transcript.Session{Source: "opencode", ID: "busy", Updated: t0, Finished: false},
			transcript.Session{Source: "opencode", ID: "kw", Updated: t0, Finished: true, LastUserText: "please remember this"},
		)
		activity <- struct{}{}
		synctest.Wait()
		if got := ex.get("kw"); len(got) != 1 || !got[0].Equal(t0) {
			t.Fatalf("keyword session ran at %v, want at once", got)
		}
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if len(ex.get("idle")) != 0 {
			t.Fatal("idle session extracted before the debounce")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if got := ex.get("idle"); len(got) != 1 || got[0].Sub(t0) != time.Minute {
			t.Fatalf("idle session ran at %v, want t0+60s", got)
		}
		if len(ex.get("busy")) != 0 {
			t.Fatal("a session with an unfinished reply was extracted")
		}
		// Nothing changed: no more passes, however long we wait.
		time.Sleep(time.Hour)
		synctest.Wait()
		if len(ex.get("idle")) != 1 || len(ex.get("kw")) != 1 {
			t.Fatal("a session without changes was extracted again")
		}
		f.shutdown()
	})
}

// A write cut short by a kill leaves its temporary file behind; the next
// start removes it from both folders, so it never lingers in git status.
func TestRunSweepsAbandonedTempFiles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		var left []string
		for _, dir := range []string{f.opts.MemoryDir, f.opts.StateDir} {
			tmp, err := os.CreateTemp(dir, atomicfile.TempPrefix+"*")
			if err != nil {
				t.Fatal(err)
			}
			tmp.Close()
			left = append(left, tmp.Name())
		}
		f.start()
		for _, p := range left {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s still there after the daemon started", p)
			}
		}
		// One left while the daemon runs (a command killed mid-write) goes
		// at the next compaction poll.
		tmp, err := os.CreateTemp(f.opts.MemoryDir, atomicfile.TempPrefix+"*")
		if err != nil {
			t.Fatal(err)
		}
		tmp.Close()
		time.Sleep(f.opts.Compact.Poll - time.Second)
		synctest.Wait()
		if _, err := os.Lstat(tmp.Name()); err != nil {
			t.Fatalf("removed before the poll: %v", err)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if _, err := os.Lstat(tmp.Name()); err == nil {
			t.Errorf("%s still there after a compaction poll", tmp.Name())
		}
		f.shutdown()
	})
}
