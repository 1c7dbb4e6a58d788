package main

import (
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkRecallProcesses measures whole `memoryd` processes at 10,000
// facts, as an agent pays for them: `context` (at every session start) and
// `search` (without a daemon, so it checks the index is fresh; and with
// one), against the floor of `memoryd version` in the same run. The daemon's rebuild has written the index files, as it does.
//
//	go test -run '^$' -bench RecallProcesses -benchtime 1x ./cmd/memoryd/
func BenchmarkRecallProcesses(b *testing.B) {
	const runs = 40
	for b.Loop() {
		w := newWorld(b)
		writeFacts(w, 10000)
		if out, code := w.runCmd(nil, "rebuild"); code != 0 {
			b.Fatalf("rebuild: %s", out)
		}
		if out, code := w.runCmd(nil, "search", "widget1"); code != 0 { // builds the search index
			b.Fatalf("search: %s", out)
		}
		median := func(args ...string) float64 {
			var d []time.Duration
			for range runs {
				cmd := exec.Command(binPath, args...)
				cmd.Env, cmd.Dir = w.env, w.home
				t0 := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", args, err, out)
				}
				d = append(d, time.Since(t0))
			}
			slices.Sort(d)
			return float64(d[len(d)/2].Microseconds()) / 1000
		}
		floor := median("version")
		ctx := median("context", "--dir", w.home)
		search := median("search", "widget4242")
		p := w.startDaemon() // the usual case: the daemon keeps the search index current
		searchD := median("search", "widget4242")
		p.stop(b)
		b.ReportMetric(searchD, "search-with-daemon-ms")
		b.ReportMetric(floor, "version-ms")
		b.ReportMetric(ctx, "context-ms")
		b.ReportMetric(search, "search-ms")
		b.ReportMetric(ctx/floor, "context-x")
		b.ReportMetric(search/floor, "search-x")
	}
}
