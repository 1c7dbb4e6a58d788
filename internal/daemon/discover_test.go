package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/transcript"
)

// growingSources lists a folder only once it exists, as the extractor's
// sources do for a store created after the daemon started.
type growingSources struct {
	dir string
	mu  sync.Mutex
	n   int // WatchPaths calls
}

func (g *growingSources) WatchPaths() []string {
	g.mu.Lock()
	g.n++
	g.mu.Unlock()
	if _, err := os.Stat(g.dir); err != nil {
		return nil
	}
	return []string{g.dir}
}

func (g *growingSources) Changed(context.Context, time.Time) ([]transcript.Session, error) {
	return nil, nil
}

func (g *growingSources) Extract(context.Context, string, string) (extractor.Result, error) {
	return extractor.Result{}, extractor.ErrNothingToDo
}

// A transcript store created after start is watched within one Discover
// period, and its first event is reported as activity.
func TestNewTranscriptStoreIsNoticed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "projects")
	x := &Extraction{Extractor: &growingSources{dir: dir}}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { x.runWatchers(ctx, 50*time.Millisecond, slog.New(slog.DiscardHandler)) })
	defer func() { cancel(); wg.Wait() }()

	activity := x.activityChan()
	// Nothing exists yet: no activity.
	select {
	case <-activity:
		t.Fatal("activity before the store exists")
	case <-time.After(200 * time.Millisecond):
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for {
		os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte("{}\n"), 0o644)
		select {
		case <-activity:
			return
		case <-deadline:
			t.Fatal("the new store was never watched")
		case <-time.After(100 * time.Millisecond):
		}
	}
}
