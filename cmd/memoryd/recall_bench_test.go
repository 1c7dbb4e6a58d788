package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkRecallProcesses measures whole `memoryd` processes at 10,000
// facts, as an agent pays for them: `context` (at every session start) and
// `search` (without a daemon, so it checks the index is fresh; and with
// one), against the floor of `memoryd version` in the same run. The
// index files are written, as the daemon's rebuild does.
//
//	go test -run '^$' -bench RecallProcesses -benchtime 1x ./cmd/memoryd/
func BenchmarkRecallProcesses(b *testing.B) {
	const runs = 40
	for b.Loop() {
		w := tenThousandIndexed(b)
		median := func(args ...string) float64 {
			return medianRun(b, w, runs, func(int) []string { return args })
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

// medianRun runs memoryd runs times in w, with the arguments args gives for
// each run, and returns the median wall time of a process in milliseconds.
func medianRun(b *testing.B, w *world, runs int, args func(i int) []string) float64 {
	var d []time.Duration
	for i := range runs {
		a := args(i)
		cmd := exec.Command(binPath, a...)
		cmd.Env, cmd.Dir = w.env, w.home
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", a, err, out)
		}
		d = append(d, time.Since(t0))
	}
	slices.Sort(d)
	return float64(d[len(d)/2].Microseconds()) / 1000
}

// tenThousandIndexed is a world of 10,000 facts with their index files and
// search index made.
func tenThousandIndexed(b *testing.B) *world {
	w := newWorld(b)
	writeFacts(w, 10000)
	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		b.Fatalf("rebuild: %s", out)
	}
	if out, code := w.runCmd(nil, "search", "widget1"); code != 0 { // builds the search index
		b.Fatalf("search: %s", out)
	}
	return w
}

// BenchmarkAddProcess measures `memoryd add` at 10,000 facts, no daemon,
// with a search index it brings up to date (search.Update) and, as the
// baseline in the same run, without one (Update then does nothing).
//
//	go test -run '^$' -bench AddProcess -benchtime 1x ./cmd/memoryd/
func BenchmarkAddProcess(b *testing.B) {
	const runs = 10
	for b.Loop() {
		w := tenThousandIndexed(b)
		db := filepath.Join(w.stateDir(), "search.db")
		n := 0
		median := func() float64 {
			return medianRun(b, w, runs, func(int) []string {
				n++
				return []string{"add", "--type", "user", "--name", fmt.Sprintf("added-%d", n),
					"--description", fmt.Sprintf("Added fact %d", n), fmt.Sprintf("Body of added fact %d.", n)}
			})
		}
		with := median()
		os.Rename(db, db+".away")
		without := median()
		os.Rename(db+".away", db)
		with2 := median()
		b.ReportMetric(without, "add-no-index-ms")
		b.ReportMetric(with, "add-first-ms")
		b.ReportMetric(with2, "add-ms")
		if base := os.Getenv(baselineEnv); base != "" {
			// The same adds by another build (scripts/bench-ab), in the
			// same world and run, then this build's again.
			withBin(base, func() { b.ReportMetric(median(), "baseline-add-ms") })
			b.ReportMetric(median(), "add-again-ms")
		}
	}
}

// baselineEnv names a memoryd binary of another build (scripts/bench-ab
// builds today's main) that the whole-process benchmarks also measure, in
// the same run, as their baseline.
const baselineEnv = "MEMORYD_BASELINE_BIN"

// withBin runs f with the end-to-end helpers running bin instead of this
// build's binary. Benchmarks only: they run one at a time.
func withBin(bin string, f func()) {
	old := binPath
	binPath = bin
	defer func() { binPath = old }()
	f()
}
