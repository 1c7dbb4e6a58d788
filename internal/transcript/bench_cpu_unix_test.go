//go:build unix

package transcript

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process used so far (user and system). Wall time on a loaded
// machine says little; CPU time per operation is steadier.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
