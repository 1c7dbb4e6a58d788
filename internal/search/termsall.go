package search

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/memoryd/memoryd/internal/index"
)

// factTerms is docTerms of one fact.
type factTerms struct {
	forms map[string]*tfs
	lens  [numFields]uint32
}

// termsOfAll is docTerms of each of ms, on a few goroutines when there are
// many: a first build of 10,000 facts spends more in it than in SQLite.
func termsOfAll(ms []*index.Memory) []factTerms {
	out := make([]factTerms, len(ms))
	one := func(i int) {
		m := ms[i]
		out[i].forms, out[i].lens = docTerms(m.Name, m.Title, m.Description, m.Body)
	}
	workers := min(runtime.GOMAXPROCS(0), 8, (len(ms)+255)/256)
	if workers <= 1 {
		for i := range ms {
			one(i)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(ms); i = int(next.Add(1) - 1) {
				one(i)
			}
		})
	}
	wg.Wait()
	return out
}
