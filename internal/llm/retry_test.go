package llm

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/backoff"
)

func TestRetryDelay(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		r          float64
		want       time.Duration
	}{
		{1, -1, 0, 250 * ms}, // 500 ms jittered into [250 ms, 500 ms)
		{1, -1, 0.5, 375 * ms},
		{1, 0, 0, 250 * ms}, // "Retry-After: 0" is no reason to hammer the server
		{2, -1, 0, 500 * ms},
		{3, -1, 0.5, 1500 * ms},
		{7, -1, 0, 15 * time.Second}, // 32 s capped at 30 s
		{1000, -1, 0.5, 22500 * ms},
		{1, 7 * time.Second, 0.5, 7 * time.Second}, // Retry-After is a floor...
		{4, time.Second, 0.5, 3 * time.Second},     // ...not a ceiling
		{9, retryAfterMax, 0.999, retryAfterMax},   // a long Retry-After beats the cap of the backoff
		{9, 20 * time.Second, 0.999, 29985 * ms},   // a longer backoff wins over a shorter one
	}
	for _, tt := range tests {
		c := &httpClient{retryBase: DefaultRetryBase, rand: func() float64 { return tt.r }}
		if got := c.retryDelay(tt.attempt, tt.retryAfter); got.Round(ms) != tt.want.Round(ms) {
			t.Errorf("retryDelay(%d, %v) with r=%v = %v, want %v", tt.attempt, tt.retryAfter, tt.r, got, tt.want)
		}
	}
}

// TestRetriesBackOff is issue 14 item 3: every kind of retryable failure
// waits a jittered, growing backoff before the next attempt, as seen by a
// real server on 127.0.0.1. Only lower bounds are asserted: a loaded machine
// makes waits longer, never shorter.
func TestRetriesBackOff(t *testing.T) {
	const (
		base    = 20 * time.Millisecond
		retries = 4
	)
	cases := []struct {
		name string
		// serve starts the far end and returns its URL, a function
		// returning the time of each attempt, and the client's transport
		// (nil: the default one).
		serve func(t *testing.T) (url string, attempts func() []time.Time, tr http.RoundTripper)
	}{
		{"503", func(t *testing.T) (string, func() []time.Time, http.RoundTripper) {
			var rec recorder
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec.add()
				http.Error(w, "overloaded", http.StatusServiceUnavailable)
			}))
			t.Cleanup(srv.Close)
			return srv.URL, rec.times, nil
		}},
		{"429 retry-after 0", func(t *testing.T) (string, func() []time.Time, http.RoundTripper) {
			var rec recorder
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec.add()
				w.Header().Set("Retry-After", "0")
				http.Error(w, "slow down", http.StatusTooManyRequests)
			}))
			t.Cleanup(srv.Close)
			return srv.URL, rec.times, nil
		}},
		{"connection closed", func(t *testing.T) (string, func() []time.Time, http.RoundTripper) {
			var rec recorder
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec.add()
				conn, _, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				conn.Close() // no answer at all
			}))
			t.Cleanup(srv.Close)
			return srv.URL, rec.times, nil
		}},
		{"connection refused", func(t *testing.T) (string, func() []time.Time, http.RoundTripper) {
			// Nothing listens, so the attempts are timed where they start:
			// at the dial.
			var rec recorder
			var d net.Dialer
			tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				rec.add()
				return d.DialContext(ctx, network, addr)
			}}
			return "http://" + closedPort(t), rec.times, tr
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url, attempts, tr := tc.serve(t)
			c, err := New(Options{Provider: "openai", BaseURL: url + "/v1", MaxRetries: retries, RetryBase: base})
			if err != nil {
				t.Fatal(err)
			}
			p := c.(*openAI)
			if tr != nil {
				p.http.client.Transport = tr
			}
			var rs []float64 // the jitter drawn for each retry, in order; only the Complete goroutine appends
			p.http.rand = func() float64 {
				r := rand.Float64()
				rs = append(rs, r)
				return r
			}

			_, err = c.Complete(context.Background(), extract)
			if err == nil || !strings.Contains(err.Error(), "giving up after 5 attempts") {
				t.Fatalf("error %v, want giving up after 5 attempts", err)
			}
			at := attempts()
			if len(at) != retries+1 || len(rs) != retries {
				t.Fatalf("%d attempts and %d backoffs, want %d and %d", len(at), len(rs), retries+1, retries)
			}
			for i := 1; i < len(at); i++ {
				gap := at[i].Sub(at[i-1])
				full := backoff.Delay(i, base, retryMax) // base, 2·base, 4·base, ...
				wait := backoff.Jitter(full, rs[i-1])
				if wait < full/2 || wait >= full {
					t.Errorf("retry %d: backoff %v outside the jitter range [%v, %v)", i, wait, full/2, full)
				}
				if gap < wait {
					t.Errorf("retry %d came %v after attempt %d, before its backoff of %v", i, gap, i, wait)
				}
				t.Logf("retry %d: gap %v, backoff %v, jitter range [%v, %v)", i, gap, wait, full/2, full)
			}
		})
	}
}

// recorder keeps the arrival time of each attempt; the server's handlers
// call add concurrently with nothing but each other.
type recorder struct {
	mu sync.Mutex
	at []time.Time
}

func (r *recorder) add() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at = append(r.at, time.Now())
}

func (r *recorder) times() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.at...)
}
