package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkContextFresh measures, on the built binary, memoryd context on
// machine B with sync on (interval 5 min) and the remote reachable, against
// memoryd version in the same runs: with B's last round recent (no round
// asked for), older than freshWithin with nothing new, and older with a
// fact A just pushed (the round pulls it; the output is checked to hold it).
//
//	go test -run '^$' -bench ContextFresh -benchtime 1x ./cmd/memoryd/
func BenchmarkContextFresh(b *testing.B) {
	const runs = 8
	for b.Loop() {
		remote, a, m := syncWorlds(b)
		a.startDaemon(slowSync...)
		m.startDaemon(slowSync...)
		waitFor(b, "B in step and idle", func() bool {
			s := m.status().Sync
			return m.head() == a.git(remote, "rev-parse", "main") && s.Ahead == 0 && !s.Running && time.Until(s.NextAt) > time.Minute
		})
		var version, recent, stale, pulled []time.Duration
		for i := range runs {
			waitOld(b, m)
			version = append(version, timed(b, m, "", "version"))
			stale = append(stale, timed(b, m, "", "context"))
			recent = append(recent, timed(b, m, "", "context"))
			text := fmt.Sprintf("Bench fact number %d from machine A", i)
			if out, code := a.runCmd(slowSync, "add", text); code != 0 {
				b.Fatalf("add on A: %s", out)
			}
			waitFor(b, "A's push", func() bool { return a.git(remote, "rev-parse", "main") == a.head() })
			waitOld(b, m)
			pulled = append(pulled, timed(b, m, text, "context"))
		}
		for _, r := range []struct {
			name string
			d    []time.Duration
		}{{"version-ms", version}, {"context-recent-round-ms", recent}, {"context-round-nothing-new-ms", stale}, {"context-round-pulls-ms", pulled}} {
			slices.Sort(r.d)
			b.ReportMetric(float64(r.d[len(r.d)/2].Microseconds())/1000, r.name)
			b.ReportMetric(float64(r.d[len(r.d)-1].Microseconds())/1000, "max-"+r.name)
		}
	}
}

// waitOld waits until w's daemon's last sync round is older than
// freshWithin, as at a session start a while after the last one.
func waitOld(b *testing.B, w *world) {
	waitFor(b, "the last round to age", func() bool {
		return time.Since(w.status().Sync.RoundStartedAt) > freshWithin+100*time.Millisecond
	})
}

// timed runs memoryd args in w and returns how long the whole process
// took; want, when set, must be in its output.
func timed(b *testing.B, w *world, want string, args ...string) time.Duration {
	cmd := exec.Command(binPath, args...)
	cmd.Env, cmd.Dir = append(w.env, slowSync...), w.home
	t0 := time.Now()
	out, err := cmd.Output()
	d := time.Since(t0)
	if err != nil || !strings.Contains(string(out), want) {
		b.Fatalf("%v: %v\n%s", args, err, out)
	}
	return d
}

// BenchmarkContextNoDaemon measures memoryd context on B with sync on, the
// remote reachable and no daemon running (context runs the round itself),
// against memoryd version in the same loop.
//
//	go test -run '^$' -bench ContextNoDaemon -benchtime 1x ./cmd/memoryd/
func BenchmarkContextNoDaemon(b *testing.B) {
	const runs = 15
	for b.Loop() {
		_, _, m := syncWorlds(b)
		var version, ctx []time.Duration
		for range runs {
			version = append(version, timed(b, m, "", "version"))
			ctx = append(ctx, timed(b, m, "", "context"))
		}
		for _, r := range []struct {
			name string
			d    []time.Duration
		}{{"version-ms", version}, {"context-no-daemon-ms", ctx}} {
			slices.Sort(r.d)
			b.ReportMetric(float64(r.d[len(r.d)/2].Microseconds())/1000, r.name)
		}
	}
}
