//go:build !unix

package transcript

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
