//go:build unix

package search

import (
	"syscall"
	"time"
)

// cpuUsed is the CPU time, user and system, used so far by this process
// and by the children it has waited for.
func cpuUsed() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
