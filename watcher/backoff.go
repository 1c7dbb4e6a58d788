package watcher

import (
	"math/rand/v2"
	"time"
)

// Retry delays for a watcher that failed: the first retry comes quickly (a
// folder being replaced is back within milliseconds), later ones at most every
// maxRetry so a folder that stays gone costs nothing.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 30 * time.Second
)

// retryDelay is the delay before retry number attempt (0-based): min doubled
// attempt times, capped at max, then jittered into [d/2, d) by r in [0, 1) so
// that several daemons woken by the same event do not retry in lockstep.
func retryDelay(attempt int, min, max time.Duration, r float64) time.Duration {
	d := min
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	half := d / 2
	return half + time.Duration(r*float64(half))
}

// backoff counts consecutive failures and hands out retry delays.
// The zero value is not ready; set min and max.
type backoff struct {
	min, max time.Duration
	rand     func() float64 // in [0, 1); nil means math/rand/v2
	attempt  int
}

// next returns the delay before the next retry and counts one more failure.
func (b *backoff) next() time.Duration {
	r := rand.Float64
	if b.rand != nil {
		r = b.rand
	}
	d := retryDelay(b.attempt, b.min, b.max, r())
	if d < b.max { // once capped, stop counting so attempt cannot overflow
		b.attempt++
	}
	return d
}

// reset forgets past failures: the next retry is quick again.
func (b *backoff) reset() { b.attempt = 0 }
