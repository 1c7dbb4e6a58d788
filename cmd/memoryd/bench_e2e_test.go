package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// BenchmarkSaveToIndex measures, on the built binary, the time from saving a
// memory file to MEMORY.md holding the change, over 200 saves. It reports
// p50 and p99 minus the configured quiet period (MEMORY_INDEX_DEBOUNCE_MS),
// which is the daemon's own overhead.
//
//	go test -run '^$' -bench SaveToIndex -benchtime 1x ./cmd/memoryd/
func BenchmarkSaveToIndex(b *testing.B) {
	const saves = 200
	quiet := 50 * time.Millisecond
	for b.Loop() {
		w := newWorld(b)
		for i := range 1000 {
			name := fmt.Sprintf("project-fact-%04d", i)
			w.write(name+".md", memoryFile("project", name, "Fact number "+strconv.Itoa(i), "Body."))
		}
		p := w.startDaemon("MEMORY_INDEX_DEBOUNCE_MS=" + strconv.Itoa(int(quiet/time.Millisecond)))
		fw, err := fsnotify.NewWatcher()
		if err != nil {
			b.Fatal(err)
		}
		fw.Add(w.mem)
		lat := make([]time.Duration, 0, saves)
		indexPath := filepath.Join(w.mem, "MEMORY.md")
		for i := range saves {
			name := fmt.Sprintf("project-fact-%04d", i)
			want := fmt.Sprintf("Saved %d", i)
			t0 := time.Now()
			w.write(name+".md", memoryFile("project", name, want, "Body."))
			deadline := time.After(patience)
		wait:
			for {
				select {
				case ev := <-fw.Events:
					if filepath.Base(ev.Name) == "MEMORY.md" {
						if data, _ := os.ReadFile(indexPath); strings.Contains(string(data), want+"\n") {
							break wait
						}
					}
				case err := <-fw.Errors:
					b.Fatal(err)
				case <-deadline:
					b.Fatalf("save %d never reached MEMORY.md", i)
				}
			}
			lat = append(lat, time.Since(t0))
		}
		fw.Close()
		p.stop(b)
		for i, l := range lat {
			if l > 200*time.Millisecond {
				b.Logf("slow save %d: %s", i, l)
			}
		}
		slices.Sort(lat)
		p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64((p50-quiet).Microseconds())/1000, "p50-over-quiet-ms")
		b.ReportMetric(float64((p99-quiet).Microseconds())/1000, "p99-over-quiet-ms")
	}
}

// BenchmarkIdle runs the daemon over 1,000 memory files and measures it
// while nothing happens for a minute: resident memory, CPU time and context
// switches (a proxy for timer wake-ups). Set MEMORYD_IDLE_SECONDS to change
// the minute.
//
//	go test -run '^$' -bench Idle -benchtime 1x ./cmd/memoryd/
func BenchmarkIdle(b *testing.B) {
	idle := 60 * time.Second
	if s, err := strconv.Atoi(os.Getenv("MEMORYD_IDLE_SECONDS")); err == nil && s > 0 {
		idle = time.Duration(s) * time.Second
	}
	for b.Loop() {
		w := newWorld(b)
		for i := range 1000 {
			name := fmt.Sprintf("project-fact-%04d", i)
			w.write(name+".md", memoryFile("project", name, "Fact number "+strconv.Itoa(i), "Body of the fact, a sentence or two long."))
		}
		p := w.startDaemon()
		waitFor(b, "start-up commit", func() bool { return !w.status().Git.LastCheckAt.IsZero() })
		time.Sleep(time.Second) // let start-up work settle before measuring
		pid := p.cmd.Process.Pid
		cpu0, sw0 := procCPU(b, pid), procSwitches(b, pid)
		time.Sleep(idle)
		cpu1, sw1 := procCPU(b, pid), procSwitches(b, pid)
		rss := procRSS(b, pid)
		p.stop(b)
		perMin := float64(time.Minute) / float64(idle)
		b.ReportMetric(float64(rss)/1024, "rss-MB")
		b.ReportMetric(float64((cpu1-cpu0).Milliseconds())*perMin, "cpu-ms/min")
		b.ReportMetric(float64(sw1-sw0)*perMin, "ctxsw/min")
	}
}

// procCPU returns user+system CPU time of pid from /proc/pid/stat.
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	const hz = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / hz
}

// procStatus returns a numeric field of /proc/pid/status.
func procStatus(b *testing.B, pid int, field string) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

func procRSS(b *testing.B, pid int) int { return procStatus(b, pid, "VmRSS") } // KiB

func procSwitches(b *testing.B, pid int) int {
	// Threads each count their own switches; sum over the task folder.
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	total := 0
	for _, t := range tasks {
		tid, _ := strconv.Atoi(filepath.Base(t))
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/status", pid, tid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			for _, k := range []string{"voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"} {
				if v, ok := strings.CutPrefix(line, k); ok {
					n, _ := strconv.Atoi(strings.TrimSpace(v))
					total += n
				}
			}
		}
	}
	return total
}
