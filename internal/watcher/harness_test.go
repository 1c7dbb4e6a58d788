package watcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/needtool"
)

// deadline bounds every wait on the real file system: generous, for a slow
// loaded CI machine. Waits poll; they never sleep and then assert.
const deadline = 10 * time.Second

// live is a Watcher running on a real directory with real fsnotify.
type live struct {
	t    *testing.T
	dir  string
	w    *Watcher
	seen []Event // events read since the last during, in order

	sentinels int

	mu    sync.Mutex
	asked []string // every path Ignore was asked about
}

// startLive runs a Watcher on dir until the test ends and waits for its
// first Rescan. ignore may be nil; every path it is asked about is recorded.
func startLive(t *testing.T, dir string, ignore func(string) bool) *live {
	t.Helper()
	lv := &live{t: t, dir: dir}
	opts := Options{Dir: dir, RescanInterval: time.Hour}
	if ignore != nil {
		opts.Ignore = func(rel string) bool {
			lv.mu.Lock()
			lv.asked = append(lv.asked, rel)
			lv.mu.Unlock()
			return ignore(rel)
		}
	}
	lv.w = New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- lv.w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(deadline):
			t.Errorf("Run did not return within %v of cancel", deadline)
		}
	})
	lv.waitRescan()
	return lv
}

// waitFor reads events until one satisfies ok, failing the test at the deadline.
func (lv *live) waitFor(what string, ok func(Event) bool) {
	lv.t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case ev := <-lv.w.Events():
			lv.seen = append(lv.seen, ev)
			if ok(ev) {
				return
			}
		case <-timeout:
			lv.t.Fatalf("no %s within %v; events so far: %v", what, deadline, lv.seen)
		}
	}
}

func (lv *live) waitRescan() {
	lv.t.Helper()
	lv.waitFor("Rescan", func(ev Event) bool { return ev.Rescan })
}

// during runs op, then writes a fresh sentinel file and returns every event
// before the sentinel's. Events come in order, so what is not among them was
// never reported for what op did.
func (lv *live) during(op func()) []Event {
	lv.t.Helper()
	lv.seen = nil
	op()
	lv.sentinels++
	name := fmt.Sprintf("sentinel-%d.md", lv.sentinels)
	lv.write(name, "")
	lv.waitFor("event for "+name, func(ev Event) bool { return ev.Path == name })
	var evs []Event
	for _, ev := range lv.seen {
		if !strings.HasPrefix(ev.Path, "sentinel-") {
			evs = append(evs, ev)
		}
	}
	return evs
}

// askedAbout reports whether Ignore has been asked about rel.
func (lv *live) askedAbout(rel string) bool {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	for _, a := range lv.asked {
		if a == rel {
			return true
		}
	}
	return false
}

func (lv *live) path(rel string) string { return filepath.Join(lv.dir, filepath.FromSlash(rel)) }

func (lv *live) write(rel, data string) {
	lv.t.Helper()
	if err := os.WriteFile(lv.path(rel), []byte(data), 0o644); err != nil {
		lv.t.Fatal(err)
	}
}

// run runs a command in dir and fails the test if it fails.
func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func need(t *testing.T, tool string) {
	t.Helper()
	needtool.Path(t, tool)
}

// has reports whether evs holds an event for rel.
func has(evs []Event, rel string) bool {
	for _, ev := range evs {
		if ev.Path == rel {
			return true
		}
	}
	return false
}

// hasRescan reports whether evs holds a Rescan.
func hasRescan(evs []Event) bool {
	for _, ev := range evs {
		if ev.Rescan {
			return true
		}
	}
	return false
}

// mustReport fails unless evs holds an event for every one of rels.
func mustReport(t *testing.T, evs []Event, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		if !has(evs, rel) {
			t.Errorf("no event for %s; got %v", rel, evs)
		}
	}
}

// mustNotReport fails if evs holds an event for a path matching bad.
func mustNotReport(t *testing.T, evs []Event, bad func(rel string) bool) {
	t.Helper()
	for _, ev := range evs {
		if !ev.Rescan && bad(ev.Path) {
			t.Errorf("unexpected event for %s; got %v", ev.Path, evs)
		}
	}
}
