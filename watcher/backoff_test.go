package watcher

import (
	"testing"
	"time"
)

func TestRetryDelay(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		attempt int
		r       float64
		want    time.Duration
	}{
		{0, 0, 50 * ms},
		{0, 0.999999, 100 * ms},
		{1, 0, 100 * ms},
		{2, 0.5, 300 * ms},       // d=400ms: 200 + 100
		{8, 0, 12800 * ms},       // d=25.6s
		{9, 0, 15 * time.Second}, // d=51.2s capped at 30s
		{9, 0.5, 22500 * ms},
		{1000, 0, 15 * time.Second}, // no overflow
	}
	for _, tt := range tests {
		got := retryDelay(tt.attempt, minRetry, maxRetry, tt.r)
		if got.Round(ms) != tt.want {
			t.Errorf("retryDelay(%d, r=%v) = %v, want %v", tt.attempt, tt.r, got, tt.want)
		}
		if got < minRetry/2 || got > maxRetry {
			t.Errorf("retryDelay(%d, r=%v) = %v outside [%v, %v]", tt.attempt, tt.r, got, minRetry/2, maxRetry)
		}
	}
}

func TestBackoffGrowsCapsAndResets(t *testing.T) {
	b := backoff{min: minRetry, max: maxRetry, rand: func() float64 { return 0.999999 }}
	var got []time.Duration
	for range 12 {
		got = append(got, b.next().Round(time.Millisecond))
	}
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("delays %v, want %v ms", got, want)
		}
	}
	b.reset()
	if d := b.next().Round(time.Millisecond); d != minRetry {
		t.Fatalf("after reset: %v, want %v", d, minRetry)
	}
}

func TestBackoffJitterStaysInRange(t *testing.T) {
	b := backoff{min: minRetry, max: maxRetry} // real randomness
	seen := map[time.Duration]bool{}
	for range 50 {
		b.reset()
		d := b.next()
		if d < minRetry/2 || d > minRetry {
			t.Fatalf("first delay %v outside [%v, %v]", d, minRetry/2, minRetry)
		}
		seen[d] = true
	}
	if len(seen) < 2 {
		t.Fatalf("no jitter: 50 first delays were all %v", seen)
	}
}
