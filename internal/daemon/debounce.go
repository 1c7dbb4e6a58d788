package daemon

import "time"

// debounce decides when a burst of changes has settled: a quiet period after
// the last change, but never later than maxWait after the first one, so a
// file that keeps changing is still flushed. It is a pure value driven by the
// times it is given; the loop turns due() into a timer.
type debounce struct {
	quiet, maxWait time.Duration
	first, last    time.Time
	pending        bool
}

// touch records a change at now.
func (d *debounce) touch(now time.Time) {
	if !d.pending {
		d.pending, d.first = true, now
	}
	d.last = now
}

// touchOnce records a change at now unless one is already pending, so a
// pending burst keeps its own quiet period.
func (d *debounce) touchOnce(now time.Time) {
	if !d.pending {
		d.touch(now)
	}
}

// due returns when the pending changes should be acted on; ok is false when
// nothing is pending.
func (d *debounce) due() (at time.Time, ok bool) {
	if !d.pending {
		return time.Time{}, false
	}
	at = d.last.Add(d.quiet)
	if limit := d.first.Add(d.maxWait); d.maxWait > 0 && limit.Before(at) {
		at = limit
	}
	return at, true
}

// clear forgets the pending changes.
func (d *debounce) clear() { d.pending = false }

// resetTimer arms t to fire at at (immediately if at has passed) or stops it
// when ok is false.
func resetTimer(t *time.Timer, at time.Time, ok bool, now time.Time) {
	if !ok {
		t.Stop()
		return
	}
	t.Reset(max(at.Sub(now), 0))
}
