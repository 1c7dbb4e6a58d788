package daemon

import (
	"testing"
	"time"
)

func TestDebounce(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	cases := []struct {
		name    string
		touches []int // ms offsets
		want    int   // due, ms offset; -1 = nothing pending
	}{
		{"nothing", nil, -1},
		{"one change waits the quiet period", []int{0}, 2000},
		{"later change pushes it back", []int{0, 1500}, 3500},
		{"steady stream is flushed at max wait", []int{0, 1900, 3800, 5700, 7600, 9500}, 10000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := debounce{quiet: 2 * time.Second, maxWait: 10 * time.Second}
			for _, off := range tc.touches {
				d.touch(ms(off))
			}
			at, ok := d.due()
			if tc.want < 0 {
				if ok {
					t.Fatalf("due at %v, want nothing pending", at)
				}
				return
			}
			if !ok || !at.Equal(ms(tc.want)) {
				t.Fatalf("due %v (ok=%v), want +%dms", at.Sub(t0), ok, tc.want)
			}
		})
	}
	d := debounce{quiet: time.Second}
	d.touch(t0)
	d.clear()
	if _, ok := d.due(); ok {
		t.Fatal("cleared debounce still pending")
	}
	d.touch(ms(5000))
	if at, _ := d.due(); !at.Equal(ms(6000)) {
		t.Fatalf("after clear the burst restarts: %v", at.Sub(t0))
	}
}
