package backoff

import (
	"math"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestDelay(t *testing.T) {
	tests := []struct {
		n         int
		base, max time.Duration
		want      time.Duration
	}{
		// The daemon's commit retries: 1 s doubling up to 10 s.
		{1, time.Second, 10 * time.Second, time.Second},
		{2, time.Second, 10 * time.Second, 2 * time.Second},
		{3, time.Second, 10 * time.Second, 4 * time.Second},
		{4, time.Second, 10 * time.Second, 8 * time.Second},
		{5, time.Second, 10 * time.Second, 10 * time.Second},
		{6, time.Second, 10 * time.Second, 10 * time.Second},
		{0, time.Second, 10 * time.Second, time.Second},  // below 1 counts as 1
		{-3, time.Second, 10 * time.Second, time.Second}, // likewise
		{9, 100 * ms, 30 * time.Second, 25600 * ms},
		{10, 100 * ms, 30 * time.Second, 30 * time.Second},
		{math.MaxInt, 100 * ms, 30 * time.Second, 30 * time.Second}, // no overflow, no long loop
		{63, time.Nanosecond, math.MaxInt64, 1 << 62},               // doubling near the top of int64
		{64, time.Nanosecond, math.MaxInt64, math.MaxInt64},
		{3, time.Minute, time.Second, time.Second}, // max below base
		{3, 0, time.Second, 0},
		{3, -time.Second, time.Second, 0},
	}
	for _, tt := range tests {
		if got := Delay(tt.n, tt.base, tt.max); got != tt.want {
			t.Errorf("Delay(%d, %v, %v) = %v, want %v", tt.n, tt.base, tt.max, got, tt.want)
		}
	}
}

func TestJitter(t *testing.T) {
	tests := []struct {
		d    time.Duration
		r    float64
		want time.Duration
	}{
		{100 * ms, 0, 50 * ms},
		{100 * ms, 0.5, 75 * ms},
		{100 * ms, 0.999999, 100 * ms}, // rounded to ms below
		{400 * ms, 0.5, 300 * ms},
		{30 * time.Second, 0, 15 * time.Second},
		{30 * time.Second, 0.5, 22500 * ms},
		{100 * ms, -1, 50 * ms}, // clamped
		{100 * ms, 7, 100 * ms},
		{0, 0.5, 0},
	}
	for _, tt := range tests {
		got := Jitter(tt.d, tt.r)
		if got.Round(ms) != tt.want {
			t.Errorf("Jitter(%v, %v) = %v, want %v", tt.d, tt.r, got, tt.want)
		}
		if got < tt.d/2 || got > tt.d {
			t.Errorf("Jitter(%v, %v) = %v outside [%v, %v]", tt.d, tt.r, got, tt.d/2, tt.d)
		}
	}
}

func TestBackoffGrowsCapsAndResets(t *testing.T) {
	b := Backoff{Base: 100 * ms, Max: 30 * time.Second, Rand: func() float64 { return 0.999999 }}
	var got []time.Duration
	for range 12 {
		got = append(got, b.Next().Round(ms))
	}
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000}
	for i := range want {
		if got[i] != want[i]*ms {
			t.Fatalf("delays %v, want %v ms", got, want)
		}
	}
	b.Reset()
	if d := b.Next().Round(ms); d != 100*ms {
		t.Fatalf("after Reset: %v, want %v", d, 100*ms)
	}
}

func TestBackoffUsesRand(t *testing.T) {
	b := Backoff{Base: 100 * ms, Max: time.Second, Rand: func() float64 { return 0 }}
	for i, want := range []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 500 * ms, 500 * ms} {
		if got := b.Next(); got != want {
			t.Fatalf("Next #%d = %v, want %v", i+1, got, want)
		}
	}
}

func TestBackoffJitterStaysInRange(t *testing.T) {
	b := Backoff{Base: 100 * ms, Max: 30 * time.Second} // real randomness
	seen := map[time.Duration]bool{}
	for range 50 {
		b.Reset()
		d := b.Next()
		if d < 50*ms || d > 100*ms {
			t.Fatalf("first delay %v outside [50ms, 100ms]", d)
		}
		seen[d] = true
	}
	if len(seen) < 2 {
		t.Fatalf("no jitter: 50 first delays were all %v", seen)
	}
}

func TestZeroBackoffWaitsNothing(t *testing.T) {
	var b Backoff
	for range 3 {
		if d := b.Next(); d != 0 {
			t.Fatalf("zero Backoff waited %v", d)
		}
	}
}
