package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkTeamContext measures what a project's team memory of 1,000
// facts adds to `memoryd context`: whole processes, medians, against
// `memoryd version` and `memoryd context` in a repository without a team
// folder, in the same run.
//
//	go test -run '^$' -bench TeamContext -benchtime 1x -count 3 ./cmd/memoryd/
func BenchmarkTeamContext(b *testing.B) {
	const runs = 40
	for b.Loop() {
		w := newWorld(b)
		writeFacts(w, 200)
		if out, code := w.runCmd(nil, "rebuild"); code != 0 {
			b.Fatalf("rebuild: %s", out)
		}
		plain, shop := filepath.Join(w.home, "plain"), filepath.Join(w.home, "shop")
		w.git(w.home, "init", "-q", plain)
		w.git(w.home, "init", "-q", shop)
		if err := os.MkdirAll(filepath.Join(shop, ".memory"), 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range 1000 {
			typ := []string{"project", "reference", "feedback"}[i%3]
			w.write(fmt.Sprintf("%s-rule-%d.md", typ, i), memoryFile(typ, fmt.Sprintf("rule-%d", i),
				fmt.Sprintf("Team rule %d about the widget%d service", i, i), "Why: the team agreed.\nHow to apply: always."), filepath.Join(shop, ".memory"))
		}
		// A checkout older than the cache's racy window (two seconds).
		old := time.Now().Add(-time.Hour)
		for i := range 1000 {
			typ := []string{"project", "reference", "feedback"}[i%3]
			os.Chtimes(filepath.Join(shop, ".memory", fmt.Sprintf("%s-rule-%d.md", typ, i)), old, old)
		}
		w.git(shop, "add", "-A")
		w.git(shop, "commit", "-q", "-m", "team memory")
		median := func(args ...string) float64 {
			return medianRun(b, w, runs, func(int) []string { return args })
		}
		cold := medianRun(b, w, 1, func(int) []string { return []string{"context", "--dir", shop} })
		floor := median("version")
		without := median("context", "--dir", plain)
		with := median("context", "--dir", shop)
		b.ReportMetric(floor, "version-ms")
		b.ReportMetric(without, "context-ms")
		b.ReportMetric(with, "context-team-ms")
		b.ReportMetric(with-without, "team-added-ms")
		b.ReportMetric(cold, "first-context-team-ms")
	}
}
