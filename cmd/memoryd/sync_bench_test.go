package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkSyncAddToOtherMachine measures, with two daemons and a bare
// remote on disk, the time from `memoryd add` on A returning to the fact's
// file on B, for two sync intervals. A pushes the fact at its next round
// and B fetches it at its next one, so the time is about one interval on
// average and two at worst, plus the rounds' own time.
//
//	go test -run '^$' -bench SyncAddToOtherMachine -benchtime 1x ./cmd/memoryd/
func BenchmarkSyncAddToOtherMachine(b *testing.B) {
	for _, interval := range []time.Duration{500 * time.Millisecond, 2 * time.Second} {
		b.Run("interval="+interval.String(), func(b *testing.B) {
			for b.Loop() {
				_, a, o := syncWorlds(b)
				env := []string{"MEMORY_SYNC_ENABLED=1", "MEMORY_SYNC_INTERVAL_MS=" + strconv.Itoa(int(interval/time.Millisecond))}
				a.startDaemon(env...)
				o.startDaemon(env...)
				waitFor(b, "B in step", func() bool { return strings.Contains(o.read("user-name.md"), "Ada") })
				const adds = 8
				var lat []time.Duration
				for i := range adds {
					name := fmt.Sprintf("fact%02d", i)
					if out, code := a.runCmd(nil, "add", "--type", "user", "--name", name, "--description", "fact "+name, "body of "+name); code != 0 {
						b.Fatalf("add (%d):\n%s", code, out)
					}
					t0 := time.Now()
					file := filepath.Join(o.mem, "user-"+name+".md")
					waitFor(b, name+" on B", func() bool { _, err := os.Stat(file); return err == nil })
					lat = append(lat, time.Since(t0))
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
				b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "max-ms")
			}
		})
	}
}

// BenchmarkSyncIdleCPU measures the CPU an idle daemon spends on sync: its
// CPU time and its git children's over a window with sync on (a round
// every second against a bare remote on disk, nothing to pull or push)
// minus the same with sync off, per round and scaled to an hour at the
// default interval (5 min: 12 rounds). The baseline in the same run is a
// plain `git fetch` of the same remote, which a round runs once.
// MEMORYD_SYNC_IDLE_SECONDS changes the 20 s window.
//
//	go test -run '^$' -bench SyncIdleCPU -benchtime 1x ./cmd/memoryd/
func BenchmarkSyncIdleCPU(b *testing.B) {
	window := 20 * time.Second
	if s, err := strconv.Atoi(os.Getenv("MEMORYD_SYNC_IDLE_SECONDS")); err == nil && s > 0 {
		window = time.Duration(s) * time.Second
	}
	const interval = time.Second
	for b.Loop() {
		_, a, _ := syncWorlds(b)
		idle := func(env ...string) time.Duration {
			p := a.startDaemon(env...)
			waitFor(b, "start-up work done", func() bool { return !a.status().Git.LastCheckAt.IsZero() })
			time.Sleep(time.Second)
			pid := p.cmd.Process.Pid
			cpu0 := procCPUWithChildren(b, pid)
			time.Sleep(window)
			cpu1 := procCPUWithChildren(b, pid)
			p.stop(b)
			return cpu1 - cpu0
		}
		off := idle()
		on := idle("MEMORY_SYNC_ENABLED=1", "MEMORY_SYNC_INTERVAL_MS="+strconv.Itoa(int(interval/time.Millisecond)))
		rounds := float64(window) / float64(interval)
		perRound := float64((on - off).Microseconds()) / 1000 / rounds

		// The baseline: the fetch a round runs, by itself.
		const fetches = 20
		var fetchCPU time.Duration
		for range fetches {
			cmd := exec.Command("git", "fetch", "--quiet", "origin")
			cmd.Dir, cmd.Env = a.notes, a.env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git fetch: %v\n%s", err, out)
			}
			fetchCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		b.ReportMetric(float64(off.Milliseconds())*float64(time.Minute)/float64(window), "off-cpu-ms/min")
		b.ReportMetric(float64(on.Milliseconds())*float64(time.Minute)/float64(window), "on-1s-cpu-ms/min")
		b.ReportMetric(perRound, "sync-cpu-ms/round")
		b.ReportMetric(perRound*12, "sync-cpu-ms/hour@5m")
		b.ReportMetric(float64(fetchCPU.Microseconds())/1000/fetches, "git-fetch-cpu-ms")
	}
}

// procCPUWithChildren returns user+system CPU time of pid and of its
// children it has waited for (the git commands it ran), from /proc.
func procCPUWithChildren(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	total := 0
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		n, _ := strconv.Atoi(f[i])
		total += n
	}
	const hz = 100 // USER_HZ on Linux
	return time.Duration(total) * time.Second / hz
}
