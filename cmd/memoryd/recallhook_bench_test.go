package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkRecallHook measures the prompt hook as an agent pays for it: a
// whole `memoryd recall` process reading a UserPromptSubmit payload on
// stdin (a new session each run, so nothing is held back as already
// injected), at 10,000 facts, with the daemon down (recall opens the
// search database) and up (recall asks the daemon's warm index), against
// the floor of `memoryd version` in the same run. The bound: the
// hook answers within 150 ms over `memoryd version`.
//
//	go test -run '^$' -bench RecallHook -benchtime 1x -count 3 ./cmd/memoryd/
func BenchmarkRecallHook(b *testing.B) {
	const runs = 40
	for b.Loop() {
		w := tenThousandIndexed(b)
		prompt := "which fact mentions widget4242 and gadget7 for topic5?"
		hook := func(label string) float64 {
			return medianStdin(b, w, runs, []string{"recall"}, func(i int) string {
				return hookPayload(fmt.Sprintf("%s-%d", label, i), w.home, prompt)
			}, func(out string) {
				if !strings.Contains(out, "widget4242") {
					b.Fatalf("recall %s found nothing:\n%s", label, out)
				}
			})
		}
		version := medianRun(b, w, runs, func(int) []string { return []string{"version"} })
		down := hook("down")
		p := w.startDaemon()
		versionUp := medianRun(b, w, runs, func(int) []string { return []string{"version"} })
		up := hook("up")
		p.stop(b)
		b.ReportMetric(version, "version-ms")
		b.ReportMetric(down, "recall-no-daemon-ms")
		b.ReportMetric(versionUp, "version-daemon-up-ms")
		b.ReportMetric(up, "recall-daemon-ms")
		b.ReportMetric(down-version, "over-version-no-daemon-ms")
		b.ReportMetric(up-versionUp, "over-version-daemon-ms")
		b.ReportMetric(down/version, "no-daemon-x")
		b.ReportMetric(up/versionUp, "daemon-x")
	}
}

// medianStdin is medianRun with input on the process's standard input and
// a check of its output.
func medianStdin(b *testing.B, w *world, runs int, args []string, input func(i int) string, check func(string)) float64 {
	var d []time.Duration
	for i := range runs {
		cmd := exec.Command(binPath, args...)
		cmd.Env, cmd.Dir = w.env, w.home
		cmd.Stdin = strings.NewReader(input(i))
		t0 := time.Now()
		out, err := cmd.Output()
		d = append(d, time.Since(t0))
		if err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
		check(string(out))
	}
	slices.Sort(d)
	return float64(d[len(d)/2].Microseconds()) / 1000
}
