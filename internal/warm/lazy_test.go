package warm

import (
	"context"
	"testing"

	"github.com/memoryd/memoryd/internal/search"
)

// Lazy takes the daemon's answer when there is one, and opens the index
// itself only when no daemon answers.
func TestLazyDaemonFirstThenOwnIndex(t *testing.T) {
	mem := t.TempDir()
	writeFact(t, mem, "alpha", "zebras")
	daemon := []search.Hit{{File: "from-daemon.md"}}
	answers := true
	l := &Lazy{StateDir: t.TempDir(), Dir: mem,
		Ask: func(context.Context, search.Query) ([]search.Hit, bool, error) { return daemon, answers, nil }}
	defer l.Close()
	hits, err := l.Search(context.Background(), search.Query{Words: "zebras"})
	if err != nil || len(hits) != 1 || hits[0].File != "from-daemon.md" || l.x != nil {
		t.Fatalf("with a daemon: %v, %v; index opened: %v", hits, err, l.x != nil)
	}
	answers = false
	hits, err = l.Search(context.Background(), search.Query{Words: "zebras"})
	if err != nil || len(hits) != 1 || hits[0].File != "reference-alpha.md" {
		t.Fatalf("without a daemon: %v, %v", hits, err)
	}
}
