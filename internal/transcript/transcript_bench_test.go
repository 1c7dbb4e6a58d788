package transcript

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks read an OpenCode database with the real schema holding benchSessions sessions
// of benchTurns turns each: a user message (one text part) and an assistant reply (step-start,
// text, a bash tool call with output, step-finish) — 100,000 parts in 40,000 messages. Sessions
// start every two hours (1,000 sessions span 83 days). The database is built once per test
// process (a few seconds) and removed by TestMain.
const (
	benchSessions = 1000
	benchTurns    = 20
	benchStart    = int64(1_700_000_000_000) // ms
	benchGap      = int64(2 * time.Hour / time.Millisecond)
	benchActive   = 10 // the incremental benchmark adds turns to the newest sessions
)

var bench struct {
	once sync.Once
	dir  string
	path string
	err  error
	// last is each session's newest message mark; the incremental benchmark moves it.
	last map[string]Watermark
	now  int64 // newest time used, ms
	seq  int   // turns added by the incremental benchmark
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

func benchDB(b *testing.B) string {
	b.Helper()
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "transcript-bench-")
		if bench.err == nil {
			bench.path = filepath.Join(bench.dir, "opencode.db")
			bench.err = buildBenchDB(b, bench.path)
		}
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.path
}

func benchSessionID(i int) string { return fmt.Sprintf("ses_%04d", i) }

func buildBenchDB(b *testing.B, path string) error {
	f := openOCFixture(b, path)
	tx, err := f.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins := func(q string) *sql.Stmt {
		st, err := tx.Prepare(q)
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	sess := ins(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
		VALUES (?, 'global', 'slug', ?, ?, '1.18.33', ?, ?)`)
	msg := ins(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`)
	part := ins(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`)
	bench.last = map[string]Watermark{}
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 6)
	for si := range benchSessions {
		sid := benchSessionID(si)
		at := benchStart + int64(si)*benchGap
		for turn := range benchTurns {
			t := at + int64(turn)*10
			w := benchTurn(b, sid, turn, t, prose, si)
			for _, m := range w.msgs {
				if _, err := msg.Exec(m[0], sid, t, t, m[1]); err != nil {
					return err
				}
			}
			for _, p := range w.parts {
				if _, err := part.Exec(p[0], p[1], sid, t, t, p[2]); err != nil {
					return err
				}
			}
			bench.last[sid] = Watermark{Time: t, ID: w.msgs[1][0]}
		}
		last := at + int64(benchTurns)*10
		if _, err := sess.Exec(sid, "/home/u/project-"+strconv.Itoa(si%50), "Session "+sid, at, last); err != nil {
			return err
		}
		bench.now = max(bench.now, last)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	f.exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return f.db.Close()
}

type turnRows struct {
	msgs  [][2]string // id, data
	parts [][3]string // id, message id, data
}

// benchTurn makes one user message and its finished reply, in OpenCode's JSON shapes.
func benchTurn(b *testing.B, sid string, turn int, t int64, prose string, seed int) turnRows {
	u := fmt.Sprintf("msg_%s_%03d_u", sid[4:], turn)
	a := fmt.Sprintf("msg_%s_%03d_v", sid[4:], turn)
	output := strings.Repeat("drwxr-xr-x  2 user user 4096 Jan  1 00:00 somedir\n", 10+(seed*7+turn*13)%60)
	start, finish := stepParts()
	return turnRows{
		msgs: [][2]string{
			{u, jsonText(b, obj{"role": "user", "time": obj{"created": t}, "agent": "build",
				"model": obj{"providerID": "openai", "modelID": "gpt-5"}, "summary": obj{"diffs": []any{}}})},
			{a, jsonText(b, obj{"parentID": u, "role": "assistant", "mode": "build", "agent": "build",
				"path": obj{"cwd": "/home/u/p", "root": "/home/u/p"}, "cost": 0.01,
				"tokens": obj{"total": 1500, "input": 1000, "output": 500}, "modelID": "gpt-5",
				"providerID": "openai", "time": obj{"created": t, "completed": t + 5}, "finish": "stop"})},
		},
		parts: [][3]string{
			{"prt_" + u[4:] + "_a", u, jsonText(b, obj{"type": "text", "text": "Please look at turn " + strconv.Itoa(turn) + ". " + prose})},
			{"prt_" + a[4:] + "_a", a, jsonText(b, start)},
			{"prt_" + a[4:] + "_b", a, jsonText(b, textPart(prose+prose))},
			{"prt_" + a[4:] + "_c", a, jsonText(b, toolPart("bash", obj{"command": "ls -la somedir", "description": "List"}, output))},
			{"prt_" + a[4:] + "_d", a, jsonText(b, finish)},
		},
	}
}

// BenchmarkIncrementalCheck: one new turn lands in one of the ten newest sessions; the daemon
// asks what changed since its last check and reads that session from its watermark.
// Target: at most 20 ms.
func BenchmarkIncrementalCheck(b *testing.B) {
	path := benchDB(b)
	s := openSource(b, path, Options{})
	w := &ocFixture{t: b, path: path, db: openWriter(b, path)}
	ctx := context.Background()
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		bench.seq++
		sid := benchSessionID(benchSessions - 1 - bench.seq%benchActive)
		bench.now += 10
		t := bench.now
		tr := benchTurn(b, sid, 1000+bench.seq, t, "remember that I prefer tabs", i)
		for _, m := range tr.msgs {
			w.exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`, m[0], sid, t, t, m[1])
		}
		for _, p := range tr.parts {
			w.exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`, p[0], p[1], sid, t, t, p[2])
		}
		w.exec(`UPDATE session SET time_updated = ? WHERE id = ?`, t, sid)
		cpu0 := cpuTime()
		b.StartTimer()

		ss, err := s.Changed(ctx, time.UnixMilli(t))
		if err != nil || len(ss) != 1 || ss[0].ID != sid || !ss[0].Finished {
			b.Fatalf("changed: %v %+v", err, ss)
		}
		msgs, err := s.Messages(ctx, sid, bench.last[sid], 0)
		if err != nil || len(msgs) != 2 {
			b.Fatalf("messages: %v %v", err, brief(msgs))
		}
		bench.last[sid] = msgs[1].Mark
		b.StopTimer()
		cpu += cpuTime() - cpu0
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkCatchUp: start-up with no watermarks, every session read from the beginning.
// Targets: at most 2 s, at most 50 MB of memory while scanning (peak Go heap, sampled, and the
// growth of the process's peak resident set, which also counts SQLite's own allocations).
func BenchmarkCatchUp(b *testing.B) {
	path := benchDB(b)
	ctx := context.Background()
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	rssBefore := peakRSS()
	var peakHeap atomic.Uint64
	stop := sampleHeap(&peakHeap)
	cpu0 := cpuTime()
	b.ResetTimer()
	var parts int
	for range b.N {
		s := openSource(b, path, Options{})
		ss, err := s.Changed(ctx, time.Time{})
		if err != nil || len(ss) != benchSessions {
			b.Fatalf("changed: %v, %d sessions", err, len(ss))
		}
		parts = 0
		for _, sess := range ss {
			msgs, err := s.Messages(ctx, sess.ID, Watermark{}, 0)
			if err != nil || len(msgs) < 2*benchTurns {
				b.Fatalf("messages %s: %v, %d", sess.ID, err, len(msgs))
			}
			parts += len(msgs)
		}
		s.Close()
	}
	b.StopTimer()
	stop()
	reportCPU(b, cpu0)
	b.ReportMetric(float64(peakHeap.Load())/(1<<20), "peak-heap-MB")
	if before, after := rssBefore, peakRSS(); before > 0 && after > 0 {
		b.ReportMetric(float64(after-before)/(1<<20), "peak-RSS-growth-MB")
		b.ReportMetric(float64(after)/(1<<20), "peak-RSS-MB")
	}
	b.ReportMetric(float64(parts), "messages")
}

// sampleHeap records the largest live-and-unswept heap (runtime/metrics, which does not stop the
// world as ReadMemStats does) seen every 2 ms until stop is called.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((cpuTime()-since).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// resetPeakRSS resets the kernel's peak resident set (VmHWM) of this process, on Linux.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is VmHWM in bytes on Linux, 0 elsewhere.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
