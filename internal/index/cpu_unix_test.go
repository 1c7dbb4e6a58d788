//go:build unix

package index

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user and system) the test process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ns/op metric to b from start, a cpuTime taken right
// before the loop: on a loaded machine CPU time varies much less than wall
// time, so ratios between benchmarks stay meaningful.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}
