// Package backoff computes how long to wait before retrying something that
// failed: a base delay doubled on every consecutive failure, capped, and
// optionally jittered so that several processes woken by the same event (a
// server coming back, a folder reappearing) do not retry in lockstep.
//
// Delay and Jitter are pure functions, for code that keeps its own failure
// count (often in persisted state) or decides from a given time; Backoff is a
// small counter for retry loops.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Delay returns the wait before retry number n of something that failed, n
// being the number of consecutive failures so far (1 for the first retry):
// base doubled n-1 times, capped at max. An n below 1 counts as 1, a base of
// zero or less gives 0, and a max below base gives max. Delay is
// deterministic and does not overflow however large n is.
func Delay(n int, base, max time.Duration) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < n && d < max; i++ {
		if d > max/2 { // doubling would pass max (or overflow)
			return max
		}
		d *= 2
	}
	return min(d, max)
}

// Jitter spreads d over [d/2, d): it returns d/2 plus the fraction r of
// d/2. r is meant to be uniform in [0, 1) (rand.Float64); values outside
// [0, 1] are clamped, so the result is never below d/2 nor above d.
func Jitter(d time.Duration, r float64) time.Duration {
	r = min(max(r, 0), 1)
	half := d / 2
	return half + time.Duration(r*float64(half))
}

// Backoff counts consecutive failures and hands out jittered delays:
// Jitter(Delay(n, Base, Max), Rand()) for the n-th failure since the last
// Reset. Set Base and Max; the zero Backoff waits 0. It is not safe for
// concurrent use: it belongs to the one loop that retries.
type Backoff struct {
	Base, Max time.Duration
	// Rand returns numbers in [0, 1); nil means math/rand/v2's Float64.
	// Tests set it to get exact delays.
	Rand func() float64

	n int // failures since the last Reset, counted only until Max is reached
}

// Next counts one more failure and returns the wait before the next retry.
func (b *Backoff) Next() time.Duration {
	r := rand.Float64
	if b.Rand != nil {
		r = b.Rand
	}
	d := Delay(b.n+1, b.Base, b.Max)
	if d < b.Max { // once capped, stop counting: n cannot overflow
		b.n++
	}
	return Jitter(d, r())
}

// Reset forgets past failures: the next retry is quick again. Call it after
// a success.
func (b *Backoff) Reset() { b.n = 0 }
